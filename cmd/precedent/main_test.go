package main

import (
	"testing"

	"github.com/precedent-dev/precedent/profiles/profilestest"
)

// TestMain installs the profiles' models as newRootCmd does, for the tests that call a subcommand's
// functions directly.
func TestMain(m *testing.M) { profilestest.Main(m) }
