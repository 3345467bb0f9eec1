package workflow

import "strings"

// Closest is the candidate nearest to name, if one is near enough to suggest.
func Closest(candidates []string, name string) string {
	best := ""
	for _, c := range candidates {
		if similar(c, name) && (best == "" || distance(c, name) < distance(best, name)) {
			best = c
		}
	}
	return best
}

// similar: close enough to suggest, as git's "did you mean" (edit distance, scaled to the length).
func similar(a, b string) bool {
	d := distance(a, b)
	return d <= max(1, min(len(a), len(b))/3) || strings.HasPrefix(a, b) && len(b) >= 2
}

// distance is the Damerau-Levenshtein (optimal string alignment) distance.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// DidYouMean is " (did you mean X?)" for the candidate nearest to name, or "".
func DidYouMean(candidates []string, name string) string {
	if best := Closest(candidates, name); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}
