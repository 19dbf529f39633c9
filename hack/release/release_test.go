package release

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/machinestatus/machinestatus/hack/release/plugin"
)

// releasePlatforms are the platforms make release builds.
var releasePlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// TestPlugin packages stand-in binaries for every platform with cmd/release (what make release
// runs after its go builds) and checks the release (checkRelease).
func TestPlugin(t *testing.T) {
	bins := standins(t, releasePlatforms, "kubectl-machinestatus")
	out := filepath.Join(t.TempDir(), "release")
	runRelease(t, "plugin", "-binaries", bins, "-platforms", strings.Join(releasePlatforms, " "), "-version", testVersion,
		"-license", filepath.Join(root, "LICENSE"), "-url", "https://github.com/machinestatus/machinestatus/releases/download/"+testVersion,
		"-homepage", "https://github.com/machinestatus/machinestatus", "-out", out)
	checkRelease(t, out, releasePlatforms, "standin version\n")
}

// TestMakeRelease runs `make release` for every platform and checks the release
// (checkRelease): the plugin installed by krew prints the stamped version.
func TestMakeRelease(t *testing.T) {
	needMake(t)
	dist := t.TempDir()
	runMake(t, "release", "DIST="+dist, "RELEASE_PLATFORMS="+strings.Join(releasePlatforms, " "))
	checkRelease(t, filepath.Join(dist, "release"), releasePlatforms,
		"kubectl machinestatus "+testVersion+" (revision "+testRevision+", "+runtime.Version()+", "+runtime.GOOS+"/"+runtime.GOARCH+")\n")
}

// checkRelease checks what a krew user gets from the release in out: checksums.txt matches the
// archives; krew's own validator (validate-krew-manifest, krew v0.4.3, -skip-install as it
// would download) accepts the manifest and refuses it under another name; `kubectl krew install
// --manifest --archive` installs every platform's archive offline (krew checks its sha256 and
// finds the binary and LICENSE) and refuses another platform's archive; each binary is built
// for its platform; and this platform's plugin, installed by krew, runs as
// `kubectl machinestatus version` and prints want.
func checkRelease(t *testing.T, out string, platforms []string, want string) {
	t.Helper()
	kubectl := binary(t, "KUBECTL_BIN", "bin/k8s/kubectl")
	krew := binary(t, "KREW_BIN", "bin/kubectl-krew")
	validate := binary(t, "KREW_VALIDATE_BIN", "bin/validate-krew-manifest")
	manifest := filepath.Join(out, plugin.ManifestFile)

	sums := checksums(t, out)
	if len(sums) != len(platforms) {
		t.Errorf("checksums.txt lists %d archives, want %d", len(sums), len(platforms))
	}
	for name, sum := range sums {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("checksums.txt: %s has sha256 %x, listed %s", name, got, sum)
		}
	}

	if b, err := exec.Command(validate, "-manifest", manifest, "-skip-install").CombinedOutput(); err != nil {
		t.Errorf("validate-krew-manifest refuses %s: %v\n%s", manifest, err, b)
	}
	renamed := filepath.Join(t.TempDir(), "other.yaml")
	copyFile(t, manifest, renamed)
	if b, err := exec.Command(validate, "-manifest", renamed, "-skip-install").CombinedOutput(); err == nil {
		t.Errorf("validate-krew-manifest accepts the manifest as other.yaml (plugin machinestatus): the check proves nothing\n%s", b)
	}

	// kubectl finds kubectl-krew, and nothing else of bin/, on this PATH.
	pluginPath := t.TempDir()
	if err := os.Symlink(krew, filepath.Join(pluginPath, "kubectl-krew")); err != nil {
		t.Fatal(err)
	}
	for _, p := range platforms {
		osName, arch, _ := strings.Cut(p, "/")
		archive := filepath.Join(out, fmt.Sprintf("kubectl-machinestatus_%s_%s_%s.tar.gz", testVersion, osName, arch))
		bin := "kubectl-machinestatus"
		if osName == "windows" {
			bin += ".exe"
		}
		checkBinary(t, p, archiveFile(t, archive, bin))

		krewRoot := t.TempDir()
		krewEnv := append(environWithout("PATH", "KREW_ROOT", "KREW_OS", "KREW_ARCH"),
			"PATH="+filepath.Join(krewRoot, "bin")+string(os.PathListSeparator)+pluginPath+string(os.PathListSeparator)+os.Getenv("PATH"),
			"KREW_ROOT="+krewRoot, "KREW_OS="+osName, "KREW_ARCH="+arch, "KREW_NO_UPGRADE_CHECK=1", "HOME="+krewRoot)
		install := exec.Command(kubectl, "krew", "install", "--manifest="+manifest, "--archive="+archive)
		install.Env = krewEnv
		if b, err := install.CombinedOutput(); err != nil {
			t.Errorf("%s: kubectl krew install: %v\n%s", p, err, b)
			continue
		}
		store := filepath.Join(krewRoot, "store", plugin.Name, testVersion)
		for _, f := range []string{bin, "LICENSE"} {
			if _, err := os.Stat(filepath.Join(store, f)); err != nil {
				t.Errorf("%s: krew did not install %s: %v", p, f, err)
			}
		}
		if p != runtime.GOOS+"/"+runtime.GOARCH {
			continue
		}
		version := exec.Command(kubectl, "machinestatus", "version")
		version.Env = krewEnv
		b, err := version.Output()
		if err != nil || string(b) != want {
			t.Errorf("kubectl machinestatus version, installed by krew: %q (%v), want %q", b, err, want)
		}
		// Another platform's archive does not match this platform's sha256: krew refuses it.
		other := strings.Replace(archive, "_"+osName+"_"+arch, "_windows_amd64", 1)
		if p == "windows/amd64" || !fileExists(other) {
			continue
		}
		wrong := exec.Command(kubectl, "krew", "install", "--manifest="+manifest, "--archive="+other)
		wrong.Env = append(slices.Clone(krewEnv), "KREW_ROOT="+t.TempDir())
		if b, err := wrong.CombinedOutput(); err == nil || !strings.Contains(string(b), "checksum does not match") {
			t.Errorf("kubectl krew install with the windows/amd64 archive for %s: %v, want a checksum mismatch\n%s", p, err, b)
		}
	}
}

// checksums returns checksums.txt of dir: archive name → sha256.
func checksums(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, plugin.ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sums := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("checksums.txt: line %q is not `sha256sum`'s", s.Text())
		}
		sums[name] = sum
	}
	return sums
}

// archiveFile returns file name of the .tar.gz archive, checking the archive holds it and
// LICENSE only.
func archiveFile(t *testing.T, archive, name string) []byte {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var names []string
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
		names = append(names, h.Name)
	}
	if want := []string{name, "LICENSE"}; !reflect.DeepEqual(names, want) {
		t.Errorf("%s holds %q, want %q", filepath.Base(archive), names, want)
	}
	return files[name]
}

// checkBinary checks that b is an executable for platform p (ELF, Mach-O or PE of its architecture).
func checkBinary(t *testing.T, p string, b []byte) {
	t.Helper()
	r := bytes.NewReader(b)
	var got string
	switch osName, arch, _ := strings.Cut(p, "/"); osName {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Fatalf("%s: not ELF: %v", p, err)
		}
		got = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
		_ = arch
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Fatalf("%s: not Mach-O: %v", p, err)
		}
		got = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Fatalf("%s: not PE: %v", p, err)
		}
		got = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	if _, arch, _ := strings.Cut(p, "/"); got != arch {
		t.Errorf("%s: the binary is built for %q", p, got)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
