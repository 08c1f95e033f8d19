// Command promlint lints Prometheus text exposition read from stdin exactly as `promtool check metrics` does:
// the same library (client_golang's promlint, at the version Prometheus v0.316 builds promtool with), the same
// output (one "metric text" line per problem on stderr) and the same exit codes (0 clean, 1 error, 3 problems).
// It stands in for promtool because building promtool takes minutes and Debian's package needs root; this
// builds in seconds with any Go (docs/testing.md).
package main

import (
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
)

func main() {
	problems, err := promlint.New(os.Stdin).Lint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error while linting:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p.Metric, p.Text)
	}
	if len(problems) > 0 {
		os.Exit(3)
	}
}
