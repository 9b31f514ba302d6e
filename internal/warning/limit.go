package warning

import "fmt"

// Limit caps a list of warnings at N lines; when some are left out, the last line counts them.
type Limit struct {
	// N is the most lines; N <= 0 means no cap.
	N int
	// More renders the closing line from the number of lines shown before it and the number it
	// stands for; nil means "and <rest> more warnings".
	More func(shown, rest int) string
}

// Shown is how many of total warnings are shown as they are: all of them when they fit in N lines,
// else N-1, the last line counting the rest.
func (l Limit) Shown(total int) int {
	if l.N <= 0 || total <= l.N {
		return total
	}
	return l.N - 1
}

// Closing is the line that stands for the warnings after the first shown of total, or "" when
// they all fit.
func (l Limit) Closing(total int) string {
	shown := l.Shown(total)
	if shown == total {
		return ""
	}
	if l.More == nil {
		return fmt.Sprintf("and %d more warnings", total-shown)
	}
	return l.More(shown, total-shown)
}

// Apply caps ws at N lines, leaving ws itself unchanged.
func (l Limit) Apply(ws []string) []string {
	shown := l.Shown(len(ws))
	if shown == len(ws) {
		return ws
	}
	return append(ws[:shown:shown], l.Closing(len(ws)))
}
