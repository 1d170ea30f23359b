package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The markers around a document written to stdout, where a report and
// whatever the script prints come before it: ReadFile finds the document
// between them in a log (kubectl logs of a client, docs/distributed.md).
const (
	BeginMarker = "-----BEGIN SBGO RESULTS-----\n"
	EndMarker   = "-----END SBGO RESULTS-----\n"
)

// WriteFile writes doc to path atomically: into a temporary file in the
// same directory, synced, then renamed over path, so that a reader (or a
// crash, or SIGKILL) never sees half a document: path holds the previous
// content or the new one. path "-" writes to stdout, between the markers.
func WriteFile(path string, doc *Document, stdout io.Writer) error {
	data, err := Marshal(doc)
	if err != nil {
		return err
	}
	if path == "-" {
		_, err := io.WriteString(stdout, BeginMarker+string(data)+EndMarker)
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("results file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("results file %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("results file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("results file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("results file %s: %w", path, err)
	}
	return nil
}

// Marshal is doc as indented JSON with a final newline. Lists and maps
// that are empty are written as [] and {}, never null.
func Marshal(doc *Document) ([]byte, error) {
	d := *doc
	d.CommandLine = nonNil(d.CommandLine)
	if d.Options == nil {
		d.Options = map[string]string{}
	}
	d.Steps = append([]Step{}, doc.Steps...) // a copy: doc stays as it is
	for i := range d.Steps {
		s := &d.Steps[i]
		s.Errors, s.Seconds = nonNil(s.Errors), nonNil(s.Seconds)
		if s.Latency.Percentiles == nil {
			s.Latency.Percentiles = map[string]float64{}
		}
	}
	data, err := json.MarshalIndent(&d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the results: %w", err)
	}
	return append(data, '\n'), nil
}

// ReadFile reads and checks a results file, or the document between the
// markers of a log (what a run with --results-file=- printed). Its errors
// are one line that names the file and the problem.
func ReadFile(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if data, err = fromLog(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// fromLog is the document between the markers when data holds them once,
// else data as it is.
func fromLog(data []byte) ([]byte, error) {
	begin := []byte("\n" + BeginMarker)
	if bytes.HasPrefix(data, begin[1:]) {
		data = append([]byte{'\n'}, data...)
	}
	n := bytes.Count(data, begin)
	if n == 0 {
		return data, nil
	}
	if n > 1 {
		return nil, fmt.Errorf("the log holds %d results documents; give each its own file", n)
	}
	_, doc, _ := bytes.Cut(data, begin)
	doc, _, found := bytes.Cut(doc, []byte("\n"+EndMarker))
	if !found {
		return nil, errors.New("the results document in the log is cut short (no end marker)")
	}
	return doc, nil
}

// ErrNotResults is the error for JSON that is not a results document.
var ErrNotResults = errors.New("not an sbgo results file")

// Unmarshal decodes a results document, refusing documents of a newer
// schema version and JSON that is not a results document at all.
func Unmarshal(data []byte) (*Document, error) {
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.SchemaVersion == nil {
		return nil, ErrNotResults
	}
	if v := *probe.SchemaVersion; v > SchemaVersion || v < 1 {
		return nil, fmt.Errorf("results schema version %d is not supported (this sbgo reads up to %d)", v, SchemaVersion)
	}
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotResults, err)
	}
	return &doc, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
