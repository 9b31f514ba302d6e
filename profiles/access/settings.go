package access

import (
	"github.com/precedent-dev/precedent/internal/settings"
	engine "github.com/precedent-dev/precedent/profiles/access/engine"
)

// SectionName is the access profile's part of the PrecedentConfig: spec.access.
const SectionName = "access"

// Section registers spec.access (the Backend kind a policy may target, mixed authorization, the
// combine mode) as a section of the settings, with engine.DefaultSettings as its default.
func (Profile) Section() (string, settings.Section) { return SectionName, engine.DefaultSettings() }

// SettingsOf returns the access settings of s: its spec.access, else the defaults.
func SettingsOf(s settings.Settings) engine.Settings {
	if v, ok := s.Section(SectionName).(engine.Settings); ok {
		return v
	}
	return engine.DefaultSettings()
}
