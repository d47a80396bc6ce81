package fdyno

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// bucket.go is where exports write their files and imports read them: the
// library's stand-in for an S3 bucket. [ExportDestination] and
// [ImportSource] are small interfaces over io.Writer and io.Reader, so a
// program can send an export anywhere (a socket, an S3 client, memory);
// [DirBucket] is both, over a local directory, with object keys as paths
// below it, and package s3bucket is both over an S3 bucket (the AWS
// SDK's client, kept out of this package).

// ExportDestination receives the objects (files) of an export.
type ExportDestination interface {
	// Create starts the object named key, a slash-separated path such as
	// "prefix/AWSDynamoDB/<id>/data/<name>.json.gz". Its contents are what
	// is written until Close; Close reports whether the object was
	// stored. An export writes one object at a time.
	Create(key string) (io.WriteCloser, error)
}

// ImportSource holds the objects an import reads.
type ImportSource interface {
	// List returns the keys of the objects whose keys start with prefix,
	// in byte order.
	List(prefix string) ([]string, error)
	// Open returns the contents of object key.
	Open(key string) (io.ReadCloser, error)
}

// ErrNoSuchBucket reports a bucket (a [DirBucket]'s directory) that does
// not exist, S3's NoSuchBucket.
var ErrNoSuchBucket = errors.New("fdyno: NoSuchBucket: the specified bucket does not exist")

// ErrAccessDenied reports a bucket its credentials may not read or
// write, S3's AccessDenied (an S3 bucket: package s3bucket).
var ErrAccessDenied = errors.New("fdyno: AccessDenied: access to the bucket is denied")

// DirBucket is a local directory used as a bucket: object key k is the
// file Dir/k. Keys are slash-separated relative paths without "." or ".."
// elements, so no object lies outside Dir; DirBucket never follows a key
// out of it. An object is written to a temporary file and renamed into
// place when it is closed, so a reader never sees a partial object.
//
// A DirBucket is safe for concurrent use by multiple goroutines on
// different keys.
type DirBucket struct {
	Dir string
}

// checkObjectKey validates an object key: 1 to 1024 bytes, relative,
// slash-separated, no empty, "." or ".." element, no backslash or NUL.
func checkObjectKey(key string) error {
	bad := len(key) == 0 || len(key) > 1024 || strings.ContainsAny(key, "\\\x00") || strings.HasPrefix(key, "/")
	if !bad {
		for _, e := range strings.Split(key, "/") {
			if e == "" || e == "." || e == ".." {
				bad = true
				break
			}
		}
	}
	if bad {
		return &ValidationError{Op: "Bucket", Reason: "invalid object key: " + truncateForMessage(key)}
	}
	return nil
}

func truncateForMessage(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func (b DirBucket) root() (string, error) {
	fi, err := os.Stat(b.Dir)
	if err != nil || !fi.IsDir() {
		return "", ErrNoSuchBucket
	}
	return b.Dir, nil
}

// Create implements [ExportDestination].
func (b DirBucket) Create(key string) (io.WriteCloser, error) {
	if err := checkObjectKey(key); err != nil {
		return nil, err
	}
	root, err := b.root()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	return &dirObject{f: f, path: path}, nil
}

// dirObject is an object being written: a temporary file renamed to its
// key's path by Close.
type dirObject struct {
	f    *os.File
	path string
}

func (o *dirObject) Write(p []byte) (int, error) { return o.f.Write(p) }

func (o *dirObject) Close() error {
	err := o.f.Sync()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.path)
	}
	if err != nil {
		_ = os.Remove(o.f.Name())
	}
	return err
}

// List implements [ImportSource]. Files whose names start with ".tmp-"
// (objects being written) are not listed.
func (b DirBucket) List(prefix string) ([]string, error) {
	root, err := b.root()
	if err != nil {
		return nil, err
	}
	var keys []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			// Walk a directory only if keys below it can match.
			if !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasPrefix(key, prefix) && !strings.HasPrefix(d.Name(), ".tmp-") {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(keys)
	return keys, nil
}

// Open implements [ImportSource].
func (b DirBucket) Open(key string) (io.ReadCloser, error) {
	if err := checkObjectKey(key); err != nil {
		return nil, err
	}
	root, err := b.root()
	if err != nil {
		return nil, err
	}
	return os.Open(filepath.Join(root, filepath.FromSlash(key)))
}
