package quota

import "time"

// saoPaulo is America/Sao_Paulo, or the fixed −03:00 offset when the
// system has no zone database (the same: Brazil has had no daylight saving
// time since 2019). store.SaoPaulo is the same rule; a test checks that
// both agree.
func saoPaulo() *time.Location {
	if loc, err := time.LoadLocation("America/Sao_Paulo"); err == nil {
		return loc
	}
	return time.FixedZone("-03", -3*60*60)
}

// Calendar is the month rule of every counter: the calendar month in
// America/Sao_Paulo.
type Calendar struct{ loc *time.Location }

// NewCalendar returns the America/Sao_Paulo calendar.
func NewCalendar() Calendar { return Calendar{loc: saoPaulo()} }

// Month returns the month of t, "YYYY-MM".
func (c Calendar) Month(t time.Time) string { return t.In(c.loc).Format("2006-01") }

// NextReset returns the instant the month of t ends: 00:00 of the first
// day of the next month in America/Sao_Paulo (03:00 UTC).
func (c Calendar) NextReset(t time.Time) time.Time {
	l := t.In(c.loc)
	return time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, c.loc)
}
