// Package pgsort is PostgreSQL's in-memory quicksort, for the operators and
// aggregates whose ties must come out in the order PostgreSQL gives them.
package pgsort

// Sort sorts the n elements reached through cmp and swap with
// PostgreSQL's in-memory sort: the quicksort of src/include/lib/
// sort_template.h (Bentley & McIlroy's "Engineering a Sort Function" with
// a presorted-input check), which tuplesort uses for every in-memory
// ORDER BY. It is not stable, and which of several equal rows comes first
// depends on the algorithm's exact steps; following them step by step
// makes ties come out in the order Postgres gives for the same input.
//
// cmp(i, j) compares elements i and j (<0, 0, >0); swap exchanges them.
func Sort(n int, cmp func(i, j int) int, swap func(i, j int)) {
	sortAt(0, n, cmp, swap)
}

func sortAt(a, n int, cmp func(i, j int) int, swap func(i, j int)) {
	for {
		if n < 7 {
			for pm := a + 1; pm < a+n; pm++ {
				for pl := pm; pl > a && cmp(pl-1, pl) > 0; pl-- {
					swap(pl, pl-1)
				}
			}
			return
		}
		presorted := true
		for pm := a + 1; pm < a+n; pm++ {
			if cmp(pm-1, pm) > 0 {
				presorted = false
				break
			}
		}
		if presorted {
			return
		}
		pm := a + n/2
		if n > 7 {
			pl := a
			pn := a + n - 1
			if n > 40 {
				d := n / 8
				pl = pgMed3(pl, pl+d, pl+2*d, cmp)
				pm = pgMed3(pm-d, pm, pm+d, cmp)
				pn = pgMed3(pn-2*d, pn-d, pn, cmp)
			}
			pm = pgMed3(pl, pm, pn, cmp)
		}
		swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := cmp(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		d1 := min(pa-a, pb-pa)
		pgSwapN(a, pb-d1, d1, swap)
		d1 = min(pd-pc, pn-pd-1)
		pgSwapN(pb, pn-d1, d1, swap)
		d1 = pb - pa
		d2 := pd - pc
		if d1 <= d2 {
			// Recurse on the left partition, iterate on the right one.
			if d1 > 1 {
				sortAt(a, d1, cmp, swap)
			}
			if d2 <= 1 {
				return
			}
			a, n = pn-d2, d2
		} else {
			if d2 > 1 {
				sortAt(pn-d2, d2, cmp, swap)
			}
			if d1 <= 1 {
				return
			}
			n = d1
		}
	}
}

func pgMed3(a, b, c int, cmp func(i, j int) int) int {
	if cmp(a, b) < 0 {
		if cmp(b, c) < 0 {
			return b
		}
		if cmp(a, c) < 0 {
			return c
		}
		return a
	}
	if cmp(b, c) > 0 {
		return b
	}
	if cmp(a, c) < 0 {
		return a
	}
	return c
}

func pgSwapN(a, b, n int, swap func(i, j int)) {
	for i := 0; i < n; i++ {
		swap(a+i, b+i)
	}
}
