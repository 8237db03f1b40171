package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Profiles of grading.
const (
	// ProfileStrict grades every expectation: outcome, kind, code, message, result shape, events.
	ProfileStrict = "strict"
	// ProfileSecurity grades outcomes only: leaks of outside bytes, names or host paths, changes
	// outside the root, and whether calls containment or policy must refuse were refused.
	ProfileSecurity = "security"
)

// Every vector is tagged either security or policy.
const (
	// TagSecurity: a failure of the vector in the security profile is a real escape or leak.
	TagSecurity = "security"
	// TagPolicy: the refusal the vector expects is fsbox's stricter choice (a path that leaves the
	// root and comes back, a walk through a link that reveals nothing, a denied or protected
	// pattern of fsbox's configuration). The security profile does not fail a target for not
	// refusing it; what a reply reveals or changes outside still fails it. Listed in tags.json, or
	// derived: every refusal the vector expects is of a policy kind (policyKinds).
	TagPolicy = "policy"
)

// tagMap assigns tags to vectors by id glob (tags.json).
type tagMap map[string][]string // tag → id globs

var tagMapOnce = sync.OnceValues(func() (tagMap, error) {
	data, err := embedded.ReadFile("tags.json")
	if err != nil {
		return nil, err
	}
	var f struct {
		Tags map[string]struct {
			About   string   `json:"about"`
			Vectors []string `json:"vectors"`
		} `json:"tags"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("tags.json: %w", err)
	}
	m := tagMap{}
	for tag, t := range f.Tags {
		for _, g := range t.Vectors {
			if !doublestar.ValidatePattern(g) {
				return nil, fmt.Errorf("tags.json: tag %s: bad glob %q", tag, g)
			}
		}
		m[tag] = t.Vectors
	}
	return m, nil
})

func loadTagMap() (tagMap, error) { return tagMapOnce() }

// AllTags returns the vector's tags: its category, every tool it calls, its own tags and those
// tags.json gives it, sorted and without repeats.
func (v *Vector) AllTags(m tagMap) []string {
	set := map[string]bool{v.Category: true}
	for _, t := range v.Tags {
		set[t] = true
	}
	var steps func([]Step)
	steps = func(list []Step) {
		for _, st := range list {
			if st.Call != "" {
				set[st.Call] = true
			}
			steps(st.Parallel)
			for _, a := range st.Answers {
				steps(a.Calls)
			}
		}
	}
	steps(v.Steps)
	if v.policyRefusalsOnly() {
		set[TagPolicy] = true
	}
	for tag, globs := range m {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, v.ID); ok {
				set[tag] = true
			}
		}
	}
	if !set[TagPolicy] {
		set[TagSecurity] = true
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// VectorTags returns the tags of v as the runner sees them (derived and mapped included).
func VectorTags(v *Vector) ([]string, error) {
	m, err := loadTagMap()
	if err != nil {
		return nil, err
	}
	return v.AllTags(m), nil
}

// HasTag reports whether one of tags matches one of the globs (all match an empty list).
func HasTag(globs, tags []string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		for _, t := range tags {
			if ok, _ := doublestar.Match(g, t); ok || g == t {
				return true
			}
		}
	}
	return false
}

// policyRefusalsOnly reports whether the vector expects refusals and every one of them is of a
// policy kind (fsbox's configuration), none of containment.
func (v *Vector) policyRefusalsOnly() bool {
	policy, containment := false, false
	var steps func([]Step)
	steps = func(list []Step) {
		for _, st := range list {
			k := expectedKind(st.Error)
			policy = policy || policyKinds[k]
			containment = containment || securityKinds[k] && !policyKinds[k]
			steps(st.Parallel)
			for _, a := range st.Answers {
				steps(a.Calls)
			}
		}
	}
	steps(v.Steps)
	if v.Init != nil {
		k := expectedKind(v.Init.Error)
		policy = policy || policyKinds[k]
		containment = containment || securityKinds[k] && !policyKinds[k]
	}
	return policy && !containment
}
