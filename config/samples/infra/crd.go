// Package infra embeds the CustomResourceDefinition of the simulated infrastructure provider
// (SimMachine, generated from test/infra/api by `make manifests`), so that the demo and the e2e
// tests install it without reading the source tree at run time.
package infra

import "embed"

// CRDs holds *.yaml: the SimMachine CRD. Load it with embedded.LoadCRDs.
//
//go:embed *.yaml
var CRDs embed.FS
