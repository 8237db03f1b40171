package hostpolicy

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestNarrowJournal: a client of a fixed policy may turn the journal on and lower its bound,
// never choose its directory (the server writes there, outside the root); Merge keeps the host's
// directory under a client's journal config.
func TestNarrowJournal(t *testing.T) {
	max := int64(1000)
	more := int64(2000)
	host := schema.Config{Journal: &schema.JournalConfig{Dir: "/var/j", MaxBytes: &max}}
	if _, err := Narrow(host, schema.Config{Journal: &schema.JournalConfig{Dir: "/tmp/x"}}); err == nil || err.(*Error).Field != "journal.dir" {
		t.Errorf("client journal.dir: %v", err)
	}
	if _, err := Narrow(host, schema.Config{Journal: &schema.JournalConfig{MaxBytes: &more}}); err == nil || err.(*Error).Field != "journal.max_bytes" {
		t.Errorf("client journal.max_bytes above the host's: %v", err)
	}
	out, err := Narrow(host, schema.Config{Journal: &schema.JournalConfig{}})
	if err != nil || out.Journal.Dir != "/var/j" || *out.Journal.MaxBytes != 1000 {
		t.Errorf("client journal {}: %+v %v", out.Journal, err)
	}
	out, err = Narrow(schema.Config{}, schema.Config{Journal: &schema.JournalConfig{}})
	if err != nil || out.Journal == nil || out.Journal.Dir != "" {
		t.Errorf("client turns the journal on: %+v %v", out.Journal, err)
	}
	m := Merge(schema.Config{Journal: &schema.JournalConfig{Dir: "/var/j"}}, schema.Config{Journal: &schema.JournalConfig{MaxBytes: &max}})
	if m.Journal.Dir != "/var/j" || *m.Journal.MaxBytes != 1000 {
		t.Errorf("Merge: %+v", m.Journal)
	}
}
