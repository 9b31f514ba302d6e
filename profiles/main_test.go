package profiles

import (
	"os"
	"testing"
)

// TestMain installs the profiles' models, as every program does before it reads settings.
func TestMain(m *testing.M) {
	Install()
	os.Exit(m.Run())
}
