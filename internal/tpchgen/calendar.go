package tpchgen

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Dates are Arrow date32 values: days since 1970-01-01.

func dayNumber(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

var (
	// startDate is STARTDATE of TPC-H 4.2.3: the first order date.
	startDate = dayNumber(1992, time.January, 1)
	// currentDate is CURRENTDATE: it splits shipped/open and returned lines.
	currentDate = dayNumber(1995, time.June, 17)
	// endDate is ENDDATE; orders are placed up to ENDDATE - 151 days so that
	// every line ships and is received by ENDDATE.
	endDate = dayNumber(1998, time.December, 31)
)

// appendDate formats a date32 as YYYY-MM-DD (used in golden output).
func appendDate(dst []byte, d int32) []byte {
	return time.Unix(int64(d)*86400, 0).UTC().AppendFormat(dst, "2006-01-02")
}

func dateOf(d int32) arrow.Date32 { return arrow.Date32(d) }
