package effective_test

import "github.com/precedent-dev/precedent/internal/settings"

var defaultSettings = settings.Defaults()
