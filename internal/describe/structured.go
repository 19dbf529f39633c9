package describe

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// writeStructured prints ds as one DescriptionList in format, OutputJSON (indented by four
// spaces as kubectl prints JSON, with a final newline) or OutputYAML (the same field names). It
// returns the encoding or write error.
func writeStructured(w io.Writer, format string, ds []Description) error {
	if ds == nil {
		ds = []Description{} // JSON prints [] rather than null
	}
	list := DescriptionList{Items: ds}
	var b []byte
	var err error
	switch format {
	case OutputJSON:
		b, err = json.MarshalIndent(list, "", "    ")
		b = append(b, '\n')
	default:
		b, err = yaml.Marshal(list)
	}
	if err != nil {
		return fmt.Errorf("cannot encode the descriptions as %s: %w", strings.ToUpper(format), err)
	}
	_, err = w.Write(b)
	return err
}
