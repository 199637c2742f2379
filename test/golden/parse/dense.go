package ledger
import (
	"errors"
	"fmt"
	"sort"
	"strings"
)
// Entry is one posting in the ledger.
type Entry struct {
	Account string
	Amount  int64
	Memo    string
}
var ErrUnbalanced = errors.New("ledger: transaction does not balance")
// PostCash records a movement on the cash account.
func PostCash(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("cash movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "cash", Amount: amount, Memo: memo})
}
// BalanceCash sums the cash postings.
func BalanceCash(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "cash" {
			total += e.Amount
		}
	}
	return total
}
// PostBank records a movement on the bank account.
func PostBank(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("bank movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "bank", Amount: amount, Memo: memo})
}
// BalanceBank sums the bank postings.
func BalanceBank(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "bank" {
			total += e.Amount
		}
	}
	return total
}
// PostRevenue records a movement on the revenue account.
func PostRevenue(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("revenue movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "revenue", Amount: amount, Memo: memo})
}
// BalanceRevenue sums the revenue postings.
func BalanceRevenue(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "revenue" {
			total += e.Amount
		}
	}
	return total
}
// PostExpenses records a movement on the expenses account.
func PostExpenses(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("expenses movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "expenses", Amount: amount, Memo: memo})
}
// BalanceExpenses sums the expenses postings.
func BalanceExpenses(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "expenses" {
			total += e.Amount
		}
	}
	return total
}
// PostPayables records a movement on the payables account.
func PostPayables(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("payables movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "payables", Amount: amount, Memo: memo})
}
// BalancePayables sums the payables postings.
func BalancePayables(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "payables" {
			total += e.Amount
		}
	}
	return total
}
// PostReceivables records a movement on the receivables account.
func PostReceivables(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("receivables movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "receivables", Amount: amount, Memo: memo})
}
// BalanceReceivables sums the receivables postings.
func BalanceReceivables(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "receivables" {
			total += e.Amount
		}
	}
	return total
}
// PostEquity records a movement on the equity account.
func PostEquity(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("equity movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "equity", Amount: amount, Memo: memo})
}
// BalanceEquity sums the equity postings.
func BalanceEquity(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "equity" {
			total += e.Amount
		}
	}
	return total
}
// PostTax records a movement on the tax account.
func PostTax(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("tax movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "tax", Amount: amount, Memo: memo})
}
// BalanceTax sums the tax postings.
func BalanceTax(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "tax" {
			total += e.Amount
		}
	}
	return total
}
// PostPayroll records a movement on the payroll account.
func PostPayroll(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("payroll movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "payroll", Amount: amount, Memo: memo})
}
// BalancePayroll sums the payroll postings.
func BalancePayroll(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "payroll" {
			total += e.Amount
		}
	}
	return total
}
// PostRent records a movement on the rent account.
func PostRent(entries []Entry, amount int64, memo string) []Entry {
	if amount == 0 {
		return entries
	}
	memo = strings.TrimSpace(memo)
	if memo == "" {
		memo = fmt.Sprintf("rent movement #%d", len(entries)+1)
	}
	return append(entries, Entry{Account: "rent", Amount: amount, Memo: memo})
}
// BalanceRent sums the rent postings.
func BalanceRent(entries []Entry) (total int64) {
	for _, e := range entries {
		if e.Account == "rent" {
			total += e.Amount
		}
	}
	return total
}
// Check verifies that all postings sum to zero.
func Check(entries []Entry) error {
	var sum int64
	for _, e := range entries {
		sum += e.Amount
	}
	if sum != 0 {
		return fmt.Errorf("%w: off by %d", ErrUnbalanced, sum)
	}
	return nil
}
// Accounts lists the accounts used, sorted.
func Accounts(entries []Entry) []string {
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Account] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
