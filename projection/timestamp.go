package projection

import "time"

// Timestamps: the one ts form docs/semantics.md §7 accepts, parsed without
// allocating to an exact instant.

// parseTSBytes accepts exactly YYYY-MM-DDTHH:MM:SS[.fraction]Z naming a
// real instant (docs/semantics.md §7). The fraction may have any number of digits;
// those past the ninth are dropped, as time.Parse drops them.
func parseTSBytes(b []byte) (time.Time, bool) {
	sec, nsec, ok := tsInstant(b)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, int64(nsec)).UTC(), true
}

// tsInstant parses a ts into Unix seconds and nanoseconds.
func tsInstant(s []byte) (sec int64, nsec int32, ok bool) {
	n := len(s)
	if n < 20 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, 0, false
	}
	bad := false
	digit := func(c byte) int {
		d := c - '0'
		bad = bad || d > 9
		return int(d)
	}
	year := digit(s[0])*1000 + digit(s[1])*100 + digit(s[2])*10 + digit(s[3])
	month := digit(s[5])*10 + digit(s[6])
	day := digit(s[8])*10 + digit(s[9])
	hour := digit(s[11])*10 + digit(s[12])
	minute := digit(s[14])*10 + digit(s[15])
	second := digit(s[17])*10 + digit(s[18])
	if bad || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 59 {
		return 0, 0, false
	}
	if n > 20 {
		if n < 22 || s[19] != '.' {
			return 0, 0, false
		}
		digits := 0
		for j := 20; j < n-1; j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, 0, false
			}
			if digits < 9 {
				nsec = nsec*10 + int32(c-'0')
				digits++
			}
		}
		for ; digits < 9; digits++ {
			nsec *= 10
		}
	}
	days := daysFromCivil(year, month, day)
	return days*86400 + int64(hour*3600+minute*60+second), nsec, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
