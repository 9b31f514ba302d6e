package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's only user: distroless's "nonroot", so clusters that pin runAsUser 65532 work unchanged.
const (
	uid, gid = 65532, 65532
	user     = "nonroot"
	home     = "/home/nonroot"
)

var (
	passwd = fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", user, uid, gid, user, home)
	group  = fmt.Sprintf("root:x:0:\n%s:x:%d:\n", user, gid)
)

// entry is one file or folder of a layer.
type entry struct {
	name     string
	mode     int64 // permission bits, plus c_ISVTX for /tmp
	uid, gid int
	dir      bool
	data     []byte
}

// baseEntries are the files every platform shares: the user and group databases, the user's home and
// /tmp. They form one layer whose digest is the same for both platforms.
func baseEntries() []entry {
	return []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, uid: uid, gid: gid, dir: true},
		{name: "tmp/", mode: 0o1777, dir: true},
	}
}

// writeEntries writes es to tw; every time stamp is mtime, so equal inputs give equal bytes.
func writeEntries(tw *tar.Writer, es []entry, mtime time.Time) error {
	for _, e := range es {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: mtime, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	return nil
}

// baseLayer is the shared layer of baseEntries.
func baseLayer(mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := writeEntries(tw, baseEntries(), mtime); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// binaryLayer holds one file, /precedent, read from path each time the layer is opened.
func binaryLayer(path string, mtime time.Time) (v1.Layer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	size := fi.Size()
	open := func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		go func() {
			defer f.Close()
			tw := tar.NewWriter(pw)
			err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "precedent", Mode: 0o755, Size: size, ModTime: mtime, Format: tar.FormatPAX})
			if err == nil {
				var n int64
				if n, err = io.Copy(tw, f); err == nil && n != size {
					err = fmt.Errorf("%s changed while it was read: %d bytes, want %d", path, n, size)
				}
			}
			if err == nil {
				err = tw.Close()
			}
			pw.CloseWithError(err)
		}()
		return pr, nil
	}
	return tarball.LayerFromOpener(open, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}
