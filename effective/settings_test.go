package effective_test

import "github.com/precedent-dev/precedent/settings"

var defaultSettings = settings.Defaults()
