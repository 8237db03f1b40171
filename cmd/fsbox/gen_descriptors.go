package main

import (
	"bytes"
	"fmt"
	"go/format"
	"strconv"

	"github.com/fsbox/fsbox/codegen"
	"github.com/fsbox/fsbox/schema"
)

// descriptorsFile is where `fsbox gen` (repo layout) writes the encoded tool descriptors.
const descriptorsFile = "schema/descriptors_gen.go"

// genDescriptors makes schema/descriptors_gen.go from schemaJSON: every tool's descriptor,
// with content hashes on and off, encoded as initialize and tools/list send it
// (schema.BuildEncodedDescriptors), so a server copies them instead of building them on the
// path of its first reply (schema.EncodedDescriptors says what keeps them right). The file is
// the bundle's like the SDKs' generated files: the same header, drift-checked by --check.
func genDescriptors(schemaJSON []byte) (codegen.File, error) {
	m, err := codegen.Parse(schemaJSON)
	if err != nil {
		return codegen.File{}, err
	}
	var variants [2][]schema.EncodedDescriptor
	for i, hashes := range []bool{false, true} {
		if variants[i], err = schema.BuildEncodedDescriptors(schemaJSON, hashes); err != nil {
			return codegen.File{}, err
		}
	}
	if len(variants[0]) != len(variants[1]) {
		return codegen.File{}, fmt.Errorf("gen: the two descriptor variants list different tools")
	}
	var b bytes.Buffer
	b.WriteString(codegen.Header("//", m))
	b.WriteString("\npackage schema\n\n")
	b.WriteString("// generatedDescriptorsHash is the hash of the bundle the descriptors below were built from:\n")
	b.WriteString("// EncodedDescriptors serves them only while it is the embedded bundle's.\n")
	fmt.Fprintf(&b, "const generatedDescriptorsHash = %s\n\n", strconv.Quote(m.SchemaHash))
	b.WriteString("// generatedDescriptor returns the named tool's descriptor, with content hashes on or off,\n")
	b.WriteString("// encoded as BuildEncodedDescriptors encodes it.\n")
	b.WriteString("func generatedDescriptor(name string, contentHashes bool) (string, bool) {\n\tswitch name {\n")
	for i, off := range variants[0] {
		on := variants[1][i]
		if on.Name != off.Name {
			return codegen.File{}, fmt.Errorf("gen: descriptor %d is %s with content hashes and %s without", i, on.Name, off.Name)
		}
		fmt.Fprintf(&b, "\tcase %s:\n", strconv.Quote(on.Name))
		if !bytes.Equal(on.JSON, off.JSON) {
			fmt.Fprintf(&b, "\t\tif contentHashes {\n\t\t\treturn %s, true\n\t\t}\n", strconv.Quote(string(on.JSON)))
		}
		fmt.Fprintf(&b, "\t\treturn %s, true\n", strconv.Quote(string(off.JSON)))
	}
	b.WriteString("\t}\n\treturn \"\", false\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return codegen.File{}, fmt.Errorf("gen: formatting %s: %w", descriptorsFile, err)
	}
	return codegen.File{Path: descriptorsFile, Data: src}, nil
}
