package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/parquet-go/parquet-go"
)

// flightParquet is a row of vega-datasets' flights-3m.parquet: date is a
// TIMESTAMP(MICROS) not adjusted to UTC (local wall time, kept as is).
type flightParquet struct {
	Date        *int64  `parquet:"date,optional"`
	Delay       *int64  `parquet:"delay,optional"`
	Distance    *int64  `parquet:"distance,optional"`
	Origin      *string `parquet:"origin,optional"`
	Destination *string `parquet:"destination,optional"`
}

// readFlightsParquet reads the flights of a Parquet file with the columns
// of flightParquet. Errors: the file cannot be read, a row lacks its date.
func readFlightsParquet(path string) ([]flight, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	r := parquet.NewGenericReader[flightParquet](pf)
	defer r.Close()
	out := make([]flight, 0, pf.NumRows())
	buf := make([]flightParquet, 4096)
	for {
		n, err := r.Read(buf)
		for _, p := range buf[:n] {
			if p.Date == nil {
				return nil, fmt.Errorf("row %d has no date", len(out)+1)
			}
			fl := flight{Date: time.UnixMicro(*p.Date).UTC()}
			if p.Delay != nil {
				fl.Delay = *p.Delay
			}
			if p.Distance != nil {
				fl.Distance = *p.Distance
			}
			if p.Origin != nil {
				fl.Origin = *p.Origin
			}
			if p.Destination != nil {
				fl.Destination = *p.Destination
			}
			out = append(out, fl)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
