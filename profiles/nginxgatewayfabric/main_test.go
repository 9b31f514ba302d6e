package nginxgatewayfabric_test

import (
	"testing"

	"github.com/precedent-dev/precedent/profiles/profilestest"
)

func TestMain(m *testing.M) { profilestest.Main(m) }
