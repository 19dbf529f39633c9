package release

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/machinestatus/machinestatus/hack/release/image"
)

// TestImage builds an image of stand-in binaries with cmd/release (what make image runs after
// its go build) and reads it back (checkImageLayout).
func TestImage(t *testing.T) {
	dist := t.TempDir()
	bins := standins(t, []string{"linux/amd64", "linux/arm64"}, "manager")
	runRelease(t, "image", "-binaries", bins, "-platforms", "linux/amd64 linux/arm64", "-version", testVersion,
		"-revision", testRevision, "-source", "https://github.com/machinestatus/machinestatus",
		"-layout", filepath.Join(dist, "image"), "-tarball", filepath.Join(dist, "image.oci.tar"))
	checkImageLayout(t, dist, "standin version\n")
}

// TestMakeImage runs `make image` and reads the image back (checkImageLayout); this platform's
// manager, taken out of its layer, prints the stamped version.
func TestMakeImage(t *testing.T) {
	needMake(t)
	dist := t.TempDir()
	runMake(t, "image", "DIST="+dist)
	checkImageLayout(t, dist, "manager "+testVersion+" (revision "+testRevision+", "+runtime.Version()+", linux/"+runtime.GOARCH+")\n")
}

// checkImageLayout reads the OCI layout dist/image back with go-containerregistry: one index
// tagged with the version, for linux/amd64 and linux/arm64, each image one layer on an empty
// base holding only the static /manager of its architecture and /etc/passwd, /etc/group (no
// shell), run as 65532:65532, labeled with version, revision and source; this platform's
// /manager, run with "version", prints want. The OCI archive dist/image.oci.tar holds the same
// layout.
func checkImageLayout(t *testing.T, dist, want string) {
	t.Helper()
	idx := readLayout(t, filepath.Join(dist, "image"))
	checkIndex(t, idx, dist, want)
	unpacked := t.TempDir()
	untar(t, filepath.Join(dist, "image.oci.tar"), unpacked)
	again := readLayout(t, unpacked)
	d1, _ := idx.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("the OCI archive's index is %s, the layout's %s", d2, d1)
	}
}

// readLayout returns the one image index of the OCI layout dir, checking that index.json
// names it with the version.
func readLayout(t *testing.T, dir string) v1.ImageIndex {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatalf("not an OCI layout: %v", err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].MediaType != types.OCIImageIndex || m.Manifests[0].Annotations[image.RefName] != testVersion {
		t.Fatalf("index.json lists %+v, want one OCI image index named %s", m.Manifests, testVersion)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// wantLabels are the labels (and annotations) `make image` stamps.
var wantLabels = map[string]string{
	image.LabelVersion: testVersion, image.LabelRevision: testRevision,
	image.LabelSource: "https://github.com/machinestatus/machinestatus", image.LabelTitle: "machinestatus-manager",
	image.LabelLicenses: "Apache-2.0",
}

func checkIndex(t *testing.T, idx v1.ImageIndex, dist, want string) {
	t.Helper()
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex || !reflect.DeepEqual(m.Annotations, wantLabels) {
		t.Errorf("index: media type %s, annotations %v; want %s, %v", m.MediaType, m.Annotations, types.OCIImageIndex, wantLabels)
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, img, d.Platform, dist, want)
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !reflect.DeepEqual(platforms, want) {
		t.Errorf("platforms %q, want %q", platforms, want)
	}
}

// elfMachines is the ELF machine of each architecture's binary.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

func checkImage(t *testing.T, img v1.Image, p *v1.Platform, dist, want string) {
	t.Helper()
	mt, _ := img.MediaType()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if mt != types.OCIManifestSchema1 || cfg.OS != p.OS || cfg.Architecture != p.Architecture {
		t.Errorf("%s: media type %s, config for %s/%s", p, mt, cfg.OS, cfg.Architecture)
	}
	c := cfg.Config
	if !reflect.DeepEqual(c.Entrypoint, []string{"/manager"}) || c.Cmd != nil || c.User != "65532:65532" || !reflect.DeepEqual(c.Labels, wantLabels) {
		t.Errorf("%s: entrypoint %q cmd %q user %q labels %v; want [/manager], none, 65532:65532, %v", p, c.Entrypoint, c.Cmd, c.User, c.Labels, wantLabels)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%s: %d layers (%v), want 1 on an empty base", p, len(layers), err)
	}
	files := layerFiles(t, layers[0])
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if want := []string{"etc/", "etc/group", "etc/passwd", "manager"}; !reflect.DeepEqual(names, want) {
		t.Errorf("%s: the layer holds %q, want %q (no shell)", p, names, want)
	}
	bin := files["manager"]
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("%s: /manager is not an ELF binary: %v", p, err)
	}
	if f.Machine != elfMachines[p.Architecture] {
		t.Errorf("%s: /manager is built for %s", p, f.Machine)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Errorf("%s: /manager is dynamically linked: no loader in the image", p)
		}
	}
	if p.Architecture != runtime.GOARCH || runtime.GOOS != "linux" {
		return
	}
	path := filepath.Join(dist, "manager-from-image")
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil || string(out) != want {
		t.Errorf("the image's /manager version: %q (%v), want %q", out, err, want)
	}
}

// layerFiles returns the files of an image layer by name.
func layerFiles(t *testing.T, l v1.Layer) map[string][]byte {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	files := map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, want root", h.Name, h.Uid, h.Gid)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
	}
}

// untar unpacks the tar file into dir.
func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
