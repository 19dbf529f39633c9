// Command release builds release artifacts from binaries `make` cross-compiled:
//
//	release image -binaries DIR -platforms "linux/amd64 linux/arm64" -version V -revision R -source URL -layout DIR -tarball FILE
//	release plugin -binaries DIR -platforms "linux/amd64 …" -version V -license LICENSE -url URL -homepage URL -out DIR
//
// image writes the manager's OCI image (package image), plugin the kubectl plugin's archives,
// checksums and krew manifest (package plugin). Both date what they write with the commit's
// time when SOURCE_DATE_EPOCH is set, else 1970-01-01, so that a build is reproducible.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/machinestatus/machinestatus/hack/release/image"
	"github.com/machinestatus/machinestatus/hack/release/plugin"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: release image|plugin [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "image":
		err = runImage(os.Args[2:])
	case "plugin":
		err = runPlugin(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: image or plugin", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// created is the time every artifact is dated: $SOURCE_DATE_EPOCH, else the Unix epoch.
func created() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid SOURCE_DATE_EPOCH %q: %w", s, err)
	}
	return time.Unix(n, 0).UTC(), nil
}

func runImage(args []string) error {
	fs := flag.NewFlagSet("image", flag.ExitOnError)
	bins := fs.String("binaries", "", "directory holding OS_ARCH/manager")
	platforms := fs.String("platforms", "linux/amd64 linux/arm64", "space-separated os/arch")
	o := image.Options{}
	fs.StringVar(&o.Version, "version", "", "version label")
	fs.StringVar(&o.Revision, "revision", "", "git revision label")
	fs.StringVar(&o.Source, "source", "", "source repository URL label")
	dir := fs.String("layout", "", "OCI image layout directory to write (replaced)")
	tarPath := fs.String("tarball", "", "OCI archive (a tar of the layout) to write; empty: none")
	_ = fs.Parse(args)
	if *bins == "" || *dir == "" || o.Version == "" {
		return fmt.Errorf("image: -binaries, -layout and -version are required")
	}
	var err error
	if o.Created, err = created(); err != nil {
		return err
	}
	o.Platforms = strings.Fields(*platforms)
	o.Binaries = map[string]string{}
	for _, p := range o.Platforms {
		o.Binaries[p] = filepath.Join(*bins, strings.ReplaceAll(p, "/", "_"), "manager")
	}
	idx, err := image.Build(o)
	if err != nil {
		return err
	}
	if _, err := image.WriteLayout(*dir, o.Version, idx); err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (OCI layout, index %s, %s)\n", *dir, digest, *platforms)
	if *tarPath != "" {
		if err := image.WriteTarball(*dir, *tarPath, o.Created); err != nil {
			return err
		}
		fmt.Printf("wrote %s (OCI archive of the layout)\n", *tarPath)
	}
	return nil
}

func runPlugin(args []string) error {
	fs := flag.NewFlagSet("plugin", flag.ExitOnError)
	o := plugin.Options{}
	platforms := fs.String("platforms", "", "space-separated os/arch")
	fs.StringVar(&o.Binaries, "binaries", "", "directory holding OS_ARCH/kubectl-machinestatus[.exe]")
	fs.StringVar(&o.Version, "version", "", "release version")
	fs.StringVar(&o.License, "license", "LICENSE", "license file to put in each archive")
	fs.StringVar(&o.URL, "url", "", "download URL of the release's archives")
	fs.StringVar(&o.Homepage, "homepage", "", "the project's homepage")
	fs.StringVar(&o.Out, "out", "", "output directory")
	_ = fs.Parse(args)
	if o.Binaries == "" || o.Version == "" || o.URL == "" || o.Out == "" || *platforms == "" {
		return fmt.Errorf("plugin: -binaries, -platforms, -version, -url and -out are required")
	}
	var err error
	if o.Created, err = created(); err != nil {
		return err
	}
	o.Platforms = strings.Fields(*platforms)
	ps, err := plugin.Build(o)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %d archives, %s and %s to %s\n", len(ps), plugin.ChecksumsFile, plugin.ManifestFile, o.Out)
	return nil
}
