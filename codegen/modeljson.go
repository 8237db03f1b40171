package codegen

import (
	"bytes"
	"encoding/json"
)

// ModelVersion is the version of the JSON form of the Model (`fsbox gen --lang model`); it changes
// only when a member is removed or changes meaning, never when one is added.
const ModelVersion = 1

// The JSON form of the Model, for SDK authors who template in another language: every reference
// between types is by name, so the document is a tree. docs/sdk-authors.md describes each member.
type (
	modelJSON struct {
		ModelVersion    int             `json:"model_version"`
		ProtocolVersion string          `json:"protocol_version"`
		SchemaHash      string          `json:"schema_hash"`
		Title           string          `json:"title"`
		Description     string          `json:"description"`
		Types           []typeJSON      `json:"types"`
		Tools           []toolJSON      `json:"tools"`
		ReservedTools   []string        `json:"reserved_tools"`
		Methods         []methodJSON    `json:"methods"`
		Events          []eventJSON     `json:"events"`
		ErrorKinds      []errorKindJSON `json:"error_kinds"`
		ErrorCodes      map[string]int  `json:"error_codes"`
	}
	typeJSON struct {
		Name        string      `json:"name"`
		Form        string      `json:"kind"` // "object" or "enum"
		Description string      `json:"description"`
		Closed      bool        `json:"closed,omitempty"` // objects: additionalProperties false
		Fields      []fieldJSON `json:"fields,omitempty"` // objects
		Values      []string    `json:"values,omitempty"` // enums
	}
	fieldJSON struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Required    bool     `json:"required"`
		Const       string   `json:"const,omitempty"`
		Type        *refJSON `json:"type"`
	}
	refJSON struct {
		Kind     string   `json:"kind"` // string integer number boolean array map named any bytes
		Elem     *refJSON `json:"elem,omitempty"`
		Name     string   `json:"name,omitempty"`
		Enum     []string `json:"enum,omitempty"`
		Minimum  *float64 `json:"minimum,omitempty"`
		MinItems *int     `json:"min_items,omitempty"`
	}
	toolJSON struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Arguments   string `json:"arguments"`
		Result      string `json:"result"`
		Default     bool   `json:"default"`
		ReadOnly    bool   `json:"read_only"`
	}
	methodJSON struct {
		Name         string   `json:"name"`
		Direction    string   `json:"direction"`
		Notification bool     `json:"notification"`
		Description  string   `json:"description"`
		Params       *string  `json:"params"`
		ParamsOneOf  []string `json:"params_one_of,omitempty"`
		Result       *string  `json:"result"`
		ResultIsTool bool     `json:"result_is_tool,omitempty"`
	}
	eventJSON struct {
		Kind         string `json:"kind"`
		Type         string `json:"type"`
		Notification bool   `json:"notification"` // carried by the event notification (false: a server request's params)
	}
	errorKindJSON struct {
		Kind          string `json:"kind"`
		Retry         bool   `json:"retry"`
		CountsAsRetry bool   `json:"counts_as_retry"`
		Description   string `json:"description"`
	}
)

// JSON renders the model as the document `fsbox gen --lang model` prints: indented, members in a
// fixed order, types sorted by name, everything else in schema order.
func (m *Model) JSON() ([]byte, error) {
	doc := modelJSON{
		ModelVersion: ModelVersion, ProtocolVersion: m.ProtocolVersion, SchemaHash: m.SchemaHash,
		Title: m.Title, Description: m.Description, ReservedTools: m.ReservedTools, ErrorCodes: m.ErrorCodes,
		Types: []typeJSON{}, Tools: []toolJSON{}, Methods: []methodJSON{}, Events: []eventJSON{}, ErrorKinds: []errorKindJSON{},
	}
	if doc.ReservedTools == nil {
		doc.ReservedTools = []string{}
	}
	for _, t := range m.Types {
		tj := typeJSON{Name: t.Name, Description: t.Description, Form: "object", Closed: t.Closed}
		if t.IsEnum() {
			tj.Form, tj.Values = "enum", t.Enum
		}
		for _, f := range t.Fields {
			tj.Fields = append(tj.Fields, fieldJSON{Name: f.Name, Description: f.Description, Required: f.Required, Const: f.Const, Type: refToJSON(f.Type)})
		}
		doc.Types = append(doc.Types, tj)
	}
	for _, t := range m.Tools {
		doc.Tools = append(doc.Tools, toolJSON{Name: t.Name, Description: t.Description, Arguments: t.Args.Name, Result: t.Result.Name, Default: t.Default, ReadOnly: t.ReadOnly})
	}
	name := func(t *Type) *string {
		if t == nil {
			return nil
		}
		return &t.Name
	}
	for _, me := range m.Methods {
		mj := methodJSON{Name: me.Name, Direction: me.Direction, Notification: me.Notification, Description: me.Description,
			Params: name(me.Params), Result: name(me.Result), ResultIsTool: me.ResultIsTool}
		for _, t := range me.ParamsOneOf {
			mj.ParamsOneOf = append(mj.ParamsOneOf, t.Name)
		}
		doc.Methods = append(doc.Methods, mj)
	}
	notified := map[*Event]bool{}
	for _, e := range m.NotificationEvents() {
		notified[e] = true
	}
	for _, e := range m.Events {
		doc.Events = append(doc.Events, eventJSON{Kind: e.Kind, Type: e.Type.Name, Notification: notified[e]})
	}
	for _, k := range m.ErrorKinds {
		doc.ErrorKinds = append(doc.ErrorKinds, errorKindJSON(k))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func refToJSON(r *TypeRef) *refJSON {
	if r == nil {
		return nil
	}
	out := &refJSON{Kind: r.Kind.String(), Elem: refToJSON(r.Elem), Enum: r.Enum, Minimum: r.Minimum, MinItems: r.MinItems}
	if r.Named != nil {
		out.Name = r.Named.Name
	}
	return out
}
