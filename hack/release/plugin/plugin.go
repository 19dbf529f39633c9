package plugin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

const (
	// Name is the plugin's name: `kubectl machinestatus`, krew's machinestatus.
	Name = "machinestatus"
	// Binary is the plugin binary's name (with .exe on Windows).
	Binary = "kubectl-" + Name
	// ManifestFile is the krew manifest's file name (krew wants the plugin's name).
	ManifestFile = Name + ".yaml"
	// ChecksumsFile lists the archives' SHA-256 as `sha256sum` prints them.
	ChecksumsFile = "checksums.txt"
)

// Options configure Build.
type Options struct {
	// Binaries is the directory holding OS_ARCH/kubectl-machinestatus[.exe] per platform.
	Binaries string
	// Platforms are "os/arch" pairs, in the manifest's order.
	Platforms []string
	// Version is the release's version (v0.1.0), URL where its archives are downloaded from,
	// Homepage the project's page.
	Version, URL, Homepage string
	// License is the LICENSE file put in each archive (krew wants one).
	License string
	// Out receives the archives, ChecksumsFile and ManifestFile.
	Out string
	// Created dates the archives' entries (fixed, so that a build is reproducible).
	Created time.Time
}

// Platform is one archive of a release.
type Platform struct {
	OS, Arch, Archive, SHA256, Bin string
}

// Build writes the archives, the checksums and the krew manifest to o.Out and returns the platforms.
func Build(o Options) ([]Platform, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", o.Out, err)
	}
	license, err := os.ReadFile(o.License)
	if err != nil {
		return nil, fmt.Errorf("cannot read the license: %w", err)
	}
	var platforms []Platform
	var sums strings.Builder
	for _, p := range o.Platforms {
		osName, arch, ok := strings.Cut(p, "/")
		if !ok {
			return nil, fmt.Errorf("platform %q is not os/arch", p)
		}
		bin := Binary
		if osName == "windows" {
			bin += ".exe"
		}
		data, err := os.ReadFile(filepath.Join(o.Binaries, osName+"_"+arch, bin))
		if err != nil {
			return nil, fmt.Errorf("cannot read the %s binary: %w", p, err)
		}
		archive := fmt.Sprintf("%s_%s_%s_%s.tar.gz", Binary, o.Version, osName, arch)
		b, err := targz(o.Created, file{bin, 0o755, data}, file{"LICENSE", 0o644, license})
		if err != nil {
			return nil, fmt.Errorf("cannot archive the %s binary: %w", p, err)
		}
		if err := os.WriteFile(filepath.Join(o.Out, archive), b, 0o644); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", archive, err)
		}
		sum := sha256.Sum256(b)
		platforms = append(platforms, Platform{OS: osName, Arch: arch, Archive: archive, SHA256: hex.EncodeToString(sum[:]), Bin: bin})
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), archive)
	}
	if err := os.WriteFile(filepath.Join(o.Out, ChecksumsFile), []byte(sums.String()), 0o644); err != nil {
		return nil, fmt.Errorf("cannot write the checksums: %w", err)
	}
	var manifest bytes.Buffer
	if err := manifestTemplate.Execute(&manifest, map[string]any{
		"Name": Name, "Version": o.Version, "Homepage": o.Homepage, "URL": strings.TrimSuffix(o.URL, "/"), "Platforms": platforms,
	}); err != nil {
		return nil, fmt.Errorf("cannot write the krew manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(o.Out, ManifestFile), manifest.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("cannot write the krew manifest: %w", err)
	}
	return platforms, nil
}

// file is an archive entry.
type file struct {
	name string
	mode int64
	data []byte
}

// targz returns a gzipped tar of files, each dated created and owned by root.
func targz(created time.Time, files ...file) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// manifestTemplate is the krew plugin manifest (krew.googlecontainertools.github.com/v1alpha2).
var manifestTemplate = template.Must(template.New(ManifestFile).Parse(`apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: {{ .Name }}
spec:
  version: {{ .Version }}
  homepage: {{ .Homepage }}
  shortDescription: Show the phase and lastOperation of Machines
  description: |
    Reads Machines (machinestatus.io, and Cluster API's cluster.x-k8s.io v1beta2) and prints
    each one's phase, lastOperation and conditions, problems first. For a Cluster API Machine
    the phase and lastOperation are derived from its conditions: nothing needs to be installed
    in the cluster.
  platforms:
{{- range .Platforms }}
  - selector:
      matchLabels:
        os: {{ .OS }}
        arch: {{ .Arch }}
    uri: {{ $.URL }}/{{ .Archive }}
    sha256: {{ .SHA256 }}
    bin: {{ .Bin }}
    files:
    - from: {{ .Bin }}
      to: .
    - from: LICENSE
      to: .
{{- end }}
`))
