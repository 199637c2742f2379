using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Clock = Acme.Time.IClock;

namespace Acme.Jobs;

/// <summary>How often a job runs.</summary>
public enum Frequency
{
    Once,
    Hourly,
    Daily,
    Weekly,
}

/// <summary>Something the scheduler can run.</summary>
public interface IJob
{
    string Name { get; }
    Task RunAsync(CancellationToken token);
}

/// <summary>A job registered with its schedule.</summary>
public record Registration(IJob Job, Frequency Frequency, DateTimeOffset NextRun);

public struct RunStats
{
    public int Succeeded;
    public int Failed;
}

/// <summary>
/// Runs registered jobs when they are due, one at a time, retrying failures with backoff.
/// </summary>
/// <remarks>Not thread-safe: call <see cref="TickAsync"/> from a single loop.</remarks>
public sealed class Scheduler
{
    public const int MaxAttempts = 5;
    private static readonly TimeSpan BaseDelay = TimeSpan.FromSeconds(2);

    private readonly Clock _clock;
    private readonly List<Registration> _jobs = new();
    private readonly Dictionary<string, int> _failures = new();
    private RunStats _stats;

    public Scheduler(Clock clock)
    {
        _clock = clock ?? throw new ArgumentNullException(nameof(clock));
    }

    public RunStats Stats => _stats;

    public void Register(IJob job, Frequency frequency)
    {
        _jobs.Add(new Registration(job, frequency, _clock.Now));
    }

    public bool Unregister(string name) => _jobs.RemoveAll(r => r.Job.Name == name) > 0;

    /// <summary>
    /// Runs every job that is due, in order of its next run time, and reschedules it. A job that
    /// throws is retried after an exponential backoff, up to <see cref="MaxAttempts"/> times.
    /// </summary>
    public async Task<int> TickAsync(CancellationToken token)
    {
        var now = _clock.Now;
        var due = _jobs.Where(r => r.NextRun <= now).OrderBy(r => r.NextRun).ToList();
        if (due.Count == 0)
        {
            return 0;
        }

        if (due.Count > _jobs.Count / 2 && _jobs.Count > 10)
        {
            // more than half the jobs are late: the process was probably suspended
            Console.Error.WriteLine($"{due.Count} of {_jobs.Count} jobs are due at once; was the host asleep?");
        }

        var ran = 0;
        foreach (var registration in due)
        {
            token.ThrowIfCancellationRequested();
            var name = registration.Job.Name;
            var index = _jobs.IndexOf(registration);
            if (index < 0)
            {
                // unregistered by an earlier job in this tick
                continue;
            }

            try
            {
                using var timeout = CancellationTokenSource.CreateLinkedTokenSource(token);
                timeout.CancelAfter(TimeSpan.FromMinutes(10));
                await registration.Job.RunAsync(timeout.Token).ConfigureAwait(false);
                _failures.Remove(name);
                _stats.Succeeded++;
                ran++;
                var next = registration.Frequency switch
                {
                    Frequency.Hourly => now.AddHours(1),
                    Frequency.Daily => now.AddDays(1),
                    Frequency.Weekly => now.AddDays(7),
                    _ => DateTimeOffset.MaxValue,
                };
                if (next == DateTimeOffset.MaxValue)
                {
                    _jobs.RemoveAt(index);
                }
                else
                {
                    _jobs[index] = registration with { NextRun = next };
                }
            }
            catch (OperationCanceledException) when (token.IsCancellationRequested)
            {
                throw;
            }
            catch (Exception error)
            {
                _stats.Failed++;
                var attempts = _failures.TryGetValue(name, out var count) ? count + 1 : 1;
                _failures[name] = attempts;
                if (attempts >= MaxAttempts)
                {
                    Console.Error.WriteLine($"job {name} failed {attempts} times, giving up: {error.Message}");
                    _jobs.RemoveAt(index);
                    _failures.Remove(name);
                    continue;
                }
                var delay = TimeSpan.FromTicks(BaseDelay.Ticks * (1L << (attempts - 1)));
                Console.Error.WriteLine($"job {name} failed (attempt {attempts}), retrying in {delay}: {error.Message}");
                _jobs[index] = registration with { NextRun = now + delay };
            }
        }

        if (ran == 0 && due.Count > 0)
        {
            // every due job failed or was skipped: say so once per tick, not once per job
            Console.Error.WriteLine($"no job ran in this tick ({due.Count} were due)");
        }

        var stale = _failures.Keys.Where(k => _jobs.All(r => r.Job.Name != k)).ToList();
        foreach (var key in stale)
        {
            _failures.Remove(key);
        }
        if (_stats.Failed > 0 && _stats.Failed > _stats.Succeeded * 2)
        {
            Console.Error.WriteLine($"warning: {_stats.Failed} failures against {_stats.Succeeded} successes");
        }
        return ran;
    }

    public IReadOnlyList<Registration> Pending() => _jobs.OrderBy(r => r.NextRun).ToList();

    private static string Describe(Registration r)
    {
        return $"{r.Job.Name} ({r.Frequency}) next at {r.NextRun:u}";
    }

    internal void Clear()
    {
        _jobs.Clear();
        _failures.Clear();
    }
}

public static class SchedulerExtensions
{
    public static void RegisterAll(this Scheduler scheduler, IEnumerable<IJob> jobs, Frequency frequency)
    {
        foreach (var job in jobs)
        {
            scheduler.Register(job, frequency);
        }
    }

    public static bool IsIdle(this Scheduler scheduler) => scheduler.Pending().Count == 0;
}
