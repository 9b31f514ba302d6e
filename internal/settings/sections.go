package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Section is a profile's own part of the settings, the PrecedentConfig's spec.<name>: a plain
// struct (not a pointer) that JSON decodes over its default, and checks itself.
type Section interface {
	Check(path *field.Path) field.ErrorList
}

var (
	sectionsMu sync.RWMutex
	// sections are the registered sections' defaults, by name.
	sections = map[string]Section{}
)

// RegisterSection makes spec.<name> a section of the settings with default def: Defaults holds def,
// Decode reads spec.<name> over it, Validate checks it. Package profiles registers the sections of
// its table's profiles (profiles.Install); registering a name again replaces its default.
func RegisterSection(name string, def Section) {
	if reflect.TypeOf(def).Kind() == reflect.Pointer {
		panic(fmt.Sprintf("settings section %s: register a struct value, not a pointer", name))
	}
	sectionsMu.Lock()
	defer sectionsMu.Unlock()
	sections[name] = def
}

// defaultSections are the registered sections' defaults, a new map.
func defaultSections() map[string]Section {
	sectionsMu.RLock()
	defer sectionsMu.RUnlock()
	out := make(map[string]Section, len(sections))
	for name, def := range sections {
		out[name] = def
	}
	return out
}

// sectionNames are the registered sections' names, sorted (the order Validate reports them in).
func sectionNames() []string {
	sectionsMu.RLock()
	defer sectionsMu.RUnlock()
	out := make([]string, 0, len(sections))
	for name := range sections {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Section returns section name of s, else its registered default, else nil.
func (s Settings) Section(name string) Section {
	if v, ok := s.Sections[name]; ok {
		return v
	}
	sectionsMu.RLock()
	defer sectionsMu.RUnlock()
	return sections[name]
}

// SetSection sets section name of s to v, in a map of its own (copies of s keep theirs).
func (s *Settings) SetSection(name string, v Section) {
	m := make(map[string]Section, len(s.Sections)+1)
	for k, x := range s.Sections {
		m[k] = x
	}
	m[name] = v
	s.Sections = m
}

// decodeSections reads, of spec (the PrecedentConfig's spec as JSON), each registered section over
// its default.
func (s *Settings) decodeSections(spec []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(spec, &raw); err != nil {
		return err
	}
	for _, name := range sectionNames() {
		b, ok := raw[name]
		if !ok || string(b) == "null" {
			continue
		}
		cur := s.Section(name)
		v := reflect.New(reflect.TypeOf(cur))
		v.Elem().Set(reflect.ValueOf(cur))
		if err := json.Unmarshal(b, v.Interface()); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		s.SetSection(name, v.Elem().Interface().(Section))
	}
	return nil
}
