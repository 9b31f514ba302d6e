package checks_test

import (
	"testing"

	"github.com/precedent-dev/precedent/profiles/profilestest"
)

// TestMain installs the profiles' models and checks, as a program does before it reads settings.
func TestMain(m *testing.M) { profilestest.Main(m) }
