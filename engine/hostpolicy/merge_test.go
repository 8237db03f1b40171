package hostpolicy

import (
	"reflect"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// Merge lays over's set fields over base's but cannot switch read_only back off: a host's
// read-only server stays read-only whatever a client asks.
func TestMergeKeepsReadOnly(t *testing.T) {
	two := 2
	got := Merge(schema.Config{ReadOnly: true, RootDir: "/a", MaxReadLines: &two}, schema.Config{RootDir: "/b", Tools: []string{"read_file"}})
	if !got.ReadOnly || got.RootDir != "/b" || *got.MaxReadLines != 2 || got.Tools[0] != "read_file" {
		t.Fatalf("Merge = %+v", got)
	}
}

// Merge takes every field over sets: a field it forgot (a new one, say) would silently drop a
// host's --config setting under its flags, or a bare server's client setting.
func TestMergeTakesEveryField(t *testing.T) {
	var over schema.Config
	v := reflect.ValueOf(&over).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("Config.%s: a %s field; teach this test (and Merge) how to set it", v.Type().Field(i).Name, f.Kind())
		}
	}
	if got := Merge(schema.Config{}, over); !reflect.DeepEqual(got, over) {
		t.Errorf("Merge(zero, every field set) = %+v; want %+v", got, over)
	}
}
