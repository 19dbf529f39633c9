package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// Entrypoint is where the binary sits in the image, and what it runs.
	Entrypoint = "/manager"
	// User is the image's user: distroless's nonroot, as the Dockerfile's and config/manager's.
	User = "65532:65532"
)

// Annotation keys of the OCI image spec set on the index, the manifests and as config labels.
const (
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelTitle    = "org.opencontainers.image.title"
	LabelLicenses = "org.opencontainers.image.licenses"
	// RefName names the index in the layout's index.json (the tag, e.g. for skopeo's oci:DIR:REF).
	RefName = "org.opencontainers.image.ref.name"
)

// passwd and group name the non-root user, for tools that look it up.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// Options configure Build.
type Options struct {
	// Binaries maps a platform ("linux/amd64") to the path of its static manager binary.
	Binaries map[string]string
	// Platforms orders the index's manifests.
	Platforms []string
	// Version, Revision and Source become the OCI labels (and annotations).
	Version, Revision, Source string
	// Created is the images' creation time (fixed, so that a build is reproducible).
	Created time.Time
}

// Build returns the multi-platform index of Options' binaries.
func Build(o Options) (v1.ImageIndex, error) {
	labels := map[string]string{
		LabelVersion: o.Version, LabelRevision: o.Revision, LabelSource: o.Source,
		LabelTitle: "machinestatus-manager", LabelLicenses: "Apache-2.0",
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range o.Platforms {
		osName, arch, ok := strings.Cut(p, "/")
		bin := o.Binaries[p]
		if !ok || bin == "" {
			return nil, fmt.Errorf("no binary for platform %q", p)
		}
		img, err := platformImage(bin, osName, arch, labels, o.Created)
		if err != nil {
			return nil, fmt.Errorf("cannot build the %s image: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}},
		})
	}
	return mutate.Annotations(idx, labels).(v1.ImageIndex), nil
}

// platformImage returns the image of one platform: a single layer on an empty base.
func platformImage(bin, osName, arch string, labels map[string]string, created time.Time) (v1.Image, error) {
	layerTar, err := rootfs(bin, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("cannot make the layer: %w", err)
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "make image (hack/release)", Comment: "the manager binary",
	}})
	if err != nil {
		return nil, fmt.Errorf("cannot add the layer: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = osName, arch, v1.Time{Time: created}
	cfg.Config = v1.Config{Entrypoint: []string{Entrypoint}, User: User, WorkingDir: "/", Labels: labels}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot set the config: %w", err)
	}
	return mutate.Annotations(img, labels).(v1.Image), nil
}

// rootfs returns the layer's tar: the binary at Entrypoint (root-owned, 0755) and /etc/passwd,
// /etc/group; every entry dated created.
func rootfs(bin string, created time.Time) ([]byte, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("cannot read the binary: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []struct {
		name string
		mode int64
		data []byte
		dir  bool
	}{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: strings.TrimPrefix(Entrypoint, "/"), mode: 0o755, data: data},
	} {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.data)), ModTime: created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteLayout writes idx to dir (replaced) as an OCI image layout whose index.json names it
// ref (RefName), and returns the layout.
func WriteLayout(dir, ref string, idx v1.ImageIndex) (layout.Path, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("cannot replace %s: %w", dir, err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", fmt.Errorf("cannot write the layout: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefName: ref})); err != nil {
		return "", fmt.Errorf("cannot write the image to the layout: %w", err)
	}
	return p, nil
}

// WriteTarball writes the layout dir as a tar (an OCI archive) to path, entries sorted and
// dated created.
func WriteTarball(dir, path string, created time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create the archive: %w", err)
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if d.IsDir() {
			h.Name, h.Mode, h.Typeflag = h.Name+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h.Size = int64(len(data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write the archive %s: %w", path, err)
	}
	return nil
}
