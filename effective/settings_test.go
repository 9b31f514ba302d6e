package effective_test

import "github.com/precedent-dev/precedent/config"

var defaultSettings = config.Defaults()
