using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Legacy.Reports
{
    /// <summary>Reads the nightly CSV export and builds the summary report.</summary>
    public sealed class NightlyReport
    {
        private readonly string _path;
        private readonly Dictionary<string, decimal> _totals = new Dictionary<string, decimal>();

        public NightlyReport(string path)
        {
            _path = path ?? throw new ArgumentNullException(nameof(path));
        }

        public IReadOnlyDictionary<string, decimal> Totals => _totals;

        public void Load()
        {
            foreach (var line in File.ReadLines(_path).Skip(1))
            {
                var fields = line.Split(';');
                if (fields.Length < 3)
                {
                    continue;
                }

                var region = fields[0].Trim();
                if (!decimal.TryParse(fields[2], out var amount))
                {
                    throw new FormatException($"bad amount in line: {line}");
                }

                _totals[region] = _totals.TryGetValue(region, out var sum) ? sum + amount : amount;
            }
        }

        public string Render()
        {
            var writer = new StringWriter();
            writer.WriteLine("Region;Total");
            foreach (var pair in _totals.OrderByDescending(p => p.Value))
            {
                writer.WriteLine($"{pair.Key};{pair.Value:F2}");
            }

            return writer.ToString();
        }

        public decimal GrandTotal()
        {
            return _totals.Values.Sum();
        }

        public string TopRegion()
        {
            if (_totals.Count == 0)
            {
                return string.Empty;
            }

            return _totals.Aggregate((a, b) => a.Value >= b.Value ? a : b).Key;
        }

        public static void Main(string[] args)
        {
            var report = new NightlyReport(args.Length > 0 ? args[0] : "export.csv");
            report.Load();
            Console.Write(report.Render());
            Console.WriteLine($"Grand total: {report.GrandTotal():F2}");
            Console.WriteLine($"Top region: {report.TopRegion()}");
        }
    }
}
