package describe

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// WriteJSON prints ds as one DescriptionList in JSON, indented by four spaces as kubectl
// prints JSON, with a final newline. It returns the encoding or write error.
func WriteJSON(w io.Writer, ds []Description) error {
	b, err := json.MarshalIndent(list(ds), "", "    ")
	if err != nil {
		return fmt.Errorf("cannot encode the descriptions as JSON: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteYAML prints ds as one DescriptionList in YAML (the same field names as WriteJSON). It
// returns the encoding or write error.
func WriteYAML(w io.Writer, ds []Description) error {
	b, err := yaml.Marshal(list(ds))
	if err != nil {
		return fmt.Errorf("cannot encode the descriptions as YAML: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// list wraps ds, never with nil items (so JSON prints [] rather than null).
func list(ds []Description) DescriptionList {
	if ds == nil {
		ds = []Description{}
	}
	return DescriptionList{Items: ds}
}
