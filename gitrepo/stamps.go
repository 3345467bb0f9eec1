package gitrepo

import (
	"os"
	"time"
)

// StampsIn stamps each named file directly in dir (inode, size, modification and change times) by a stat
// relative to dir, as ScanRefsKnown stamps loose refs, but also a file younger than a clock tick:
// for a caller that only compares a stamp with the one it kept last time, a thousand of them on
// every call (the hook's watch of the workflow refs), where FileStamp's stat of a whole path and
// its formatting were most of the check. A stamp is "" where the file cannot be stamped (gone),
// every stamp "" when dir cannot be opened.
func StampsIn(dir string, names []string) []string { return stampsIn(dir, names, time.Time{}) }

// SettledStampsIn is StampsIn with the stamps ScanRefsKnown keeps: "" also where the file is
// younger than a clock tick (a write within the tick could leave its stamp as it was).
func SettledStampsIn(dir string, names []string) []string { return stampsIn(dir, names, time.Now()) }

func stampsIn(dir string, names []string, now time.Time) []string {
	d, err := os.Open(dir)
	if err != nil {
		return make([]string, len(names))
	}
	defer d.Close()
	stamps, _ := stampFiles(d, names, now)
	return stamps
}
