package profilestest

import (
	"os"
	"testing"

	"github.com/precedent-dev/precedent/profiles"
)

// Main installs the profiles' models, runs the tests and exits: a package's TestMain.
func Main(m *testing.M) {
	profiles.Install()
	os.Exit(m.Run())
}
