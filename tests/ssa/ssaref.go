// Command ssaref is the test suite's reference for server-side apply: it runs Kubernetes' own
// structured-merge-diff (sigs.k8s.io/structured-merge-diff/v4, the library the API server's
// field manager calls) over a sequence of writes to one object and prints what it computed.
//
// Input on stdin, one JSON document:
//
//	{"swagger": "PATH of a Swagger 2.0 document with the types' definitions",
//	 "cases": [{"type": "io.k8s.api.apps.v1.Deployment",
//	            "steps": [{"manager": "helm", "operation": "Apply" | "Update",
//	                       "object": {...}, "force": false}, ...]}, ...]}
//
// Output on stdout, one JSON document: for each case, in order, the object after the last
// step that succeeded, each manager's fields as FieldsV1 (the form metadata.managedFields
// holds) with its operation, and per step its conflicts (manager and field path, as the API
// server's conflict message names them) or its error. A step that conflicts or fails leaves
// the object and the managers as they were, as the API server does.
//
// Schema: the Swagger document goes through kube-openapi's schemaconv, the conversion the API
// server makes of its own OpenAPI definitions for the field manager.
package main

import (
	"encoding/json"
	"fmt"
	"io/ioutil"
	"os"
	"sort"

	openapi_v2 "github.com/googleapis/gnostic/OpenAPIv2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/util/proto"
	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

type step struct {
	Manager   string                 `json:"manager"`
	Operation string                 `json:"operation"`
	Object    map[string]interface{} `json:"object"`
	Force     bool                   `json:"force"`
}

type testCase struct {
	Type  string `json:"type"`
	Steps []step `json:"steps"`
}

type request struct {
	Swagger string     `json:"swagger"`
	Cases   []testCase `json:"cases"`
}

type conflict struct {
	Manager string `json:"manager"`
	Field   string `json:"field"`
}

type stepResult struct {
	Conflicts []conflict `json:"conflicts"`
	Error     string     `json:"error,omitempty"`
}

type manager struct {
	Operation string          `json:"operation"`
	Fields    json.RawMessage `json:"fields"`
}

type caseResult struct {
	Object   interface{}        `json:"object"`
	Managers map[string]manager `json:"managers"`
	Steps    []stepResult       `json:"steps"`
	Error    string             `json:"error,omitempty"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "ssaref: "+format+"\n", args...)
	os.Exit(1)
}

// sameVersion converts nothing: every write of a case is at one API version.
type sameVersion struct{}

func (sameVersion) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}

func (sameVersion) IsMissingVersionError(error) bool { return false }

// The fields the API server's field manager never records as anyone's (k8s.io/apiserver's
// fieldmanager, stripMeta): the type and the object's identity and bookkeeping.
var stripped = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

func parser(path string) *typed.Parser {
	raw, err := ioutil.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	doc, err := openapi_v2.ParseDocument(raw)
	if err != nil {
		fail("parsing %s: %v", path, err)
	}
	models, err := proto.NewOpenAPIData(doc)
	if err != nil {
		fail("reading the models of %s: %v", path, err)
	}
	s, err := schemaconv.ToSchema(models)
	if err != nil {
		fail("converting the schema of %s: %v", path, err)
	}
	return &typed.Parser{Schema: *s}
}

func copied(managers fieldpath.ManagedFields) fieldpath.ManagedFields {
	out := make(fieldpath.ManagedFields, len(managers))
	for name, fields := range managers {
		out[name] = fields
	}
	return out
}

// conflictsOf names the fields an apply conflicts on, by the manager that owns each: what the
// same apply with force takes from each other manager and gives the applier. (The library's own Conflicts share one
// path buffer between entries in this version, so with several conflicts their paths can read
// as one another's; what force moves is exact.)
func conflictsOf(updater merge.Updater, live, obj *typed.TypedValue, version fieldpath.APIVersion,
	managers fieldpath.ManagedFields, applier string) []conflict {
	out := []conflict{}
	_, forced, err := updater.Apply(live, obj, version, copied(managers), applier, true)
	if err != nil {
		fail("the forced apply after a conflict failed: %v", err)
	}
	names := make([]string, 0, len(managers))
	for name := range managers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == applier {
			continue
		}
		// Taken by the applier: a field the apply removes leaves every set, the applier's too.
		lost := managers[name].Set().Intersection(forced[applier].Set())
		if after, ok := forced[name]; ok {
			lost = lost.Difference(after.Set())
		}
		lost.Iterate(func(p fieldpath.Path) {
			out = append(out, conflict{Manager: name, Field: p.String()})
		})
	}
	return out
}

func run(p *typed.Parser, c testCase) caseResult {
	out := caseResult{Managers: map[string]manager{}, Steps: []stepResult{}}
	pt := p.Type(c.Type)
	if !pt.IsValid() {
		out.Error = "no type " + c.Type + " in the schema"
		return out
	}
	version := fieldpath.APIVersion("v1")
	updater := merge.Updater{Converter: sameVersion{}, IgnoredFields: map[fieldpath.APIVersion]*fieldpath.Set{version: stripped}}
	managers := fieldpath.ManagedFields{}
	operations := map[string]string{}
	var live *typed.TypedValue
	for _, st := range c.Steps {
		res := stepResult{Conflicts: []conflict{}}
		obj, err := pt.FromUnstructured(st.Object)
		if err != nil {
			res.Error = err.Error()
			out.Steps = append(out.Steps, res)
			continue
		}
		if live == nil { // the object is created: nothing is live yet
			live, err = pt.FromUnstructured(map[string]interface{}{})
			if err != nil {
				fail("an empty %s: %v", c.Type, err)
			}
		}
		var next *typed.TypedValue
		var nextManagers fieldpath.ManagedFields
		// The library writes into the map it is given, even when the write fails: each call
		// gets a copy, so a failed step leaves the managers as they were.
		switch st.Operation {
		case "Apply":
			next, nextManagers, err = updater.Apply(live, obj, version, copied(managers), st.Manager, st.Force)
		case "Update":
			next, nextManagers, err = updater.Update(live, obj, version, copied(managers), st.Manager)
		default:
			err = fmt.Errorf("operation %q: Apply or Update", st.Operation)
		}
		if _, ok := err.(merge.Conflicts); ok {
			res.Conflicts = conflictsOf(updater, live, obj, version, managers, st.Manager)
		} else if err != nil {
			res.Error = err.Error()
		} else {
			if next != nil { // an apply that changes nothing returns no object
				live = next
			}
			managers = nextManagers
			operations[st.Manager] = st.Operation
		}
		out.Steps = append(out.Steps, res)
	}
	if live != nil {
		out.Object = live.AsValue().Unstructured()
	}
	for name, fields := range managers {
		b, err := fields.Set().ToJSON()
		if err != nil {
			fail("%v", err)
		}
		out.Managers[name] = manager{Operation: operations[name], Fields: json.RawMessage(b)}
	}
	return out
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fail("reading the request: %v", err)
	}
	p := parser(req.Swagger)
	results := make([]caseResult, 0, len(req.Cases))
	for _, c := range req.Cases {
		results = append(results, run(p, c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"results": results}); err != nil {
		fail("%v", err)
	}
}
