package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// backupSuffix ends the name of every backup Write makes.
const backupSuffix = ".replay-backup"

// ErrChanged means the session file changed after it was read (the agent
// is still writing it): nothing was written.
var ErrChanged = errors.New("the session file changed since it was read")

// ErrNoBackup means Undo found no backup of the file's current content.
var ErrNoBackup = errors.New("no backup of this content")

// Write applies the plan to its session file: the original is copied
// beside it to "<file>.<digest>.replay-backup", where digest names the
// repaired content, then the repaired file replaces it atomically (a
// temporary file in the same directory, synced, renamed over it). It
// refuses when the file changed since it was read. It returns the
// backup's path.
func Write(p *Plan) (string, error) {
	path := p.Session.Path
	if err := p.Session.unchanged(); err != nil {
		return "", err
	}
	if p.Empty() {
		return "", nil
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+name+".replay-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	if _, err := p.WriteTo(io.MultiWriter(tmp, h)); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	backup := path + "." + hex.EncodeToString(h.Sum(nil))[:16] + backupSuffix
	if err := copyFile(path, backup, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("backing up: %w", err)
	}
	if err := p.Session.unchanged(); err != nil {
		os.Remove(backup)
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(backup)
		return "", err
	}
	syncDir(dir)
	return backup, nil
}

// unchanged checks that the file still has the size and time it was read
// with.
func (s *Session) unchanged() error {
	fi, err := os.Stat(s.Path)
	if err != nil {
		return err
	}
	if fi.Size() != s.size || !fi.ModTime().Equal(s.mod) {
		return fmt.Errorf("%s: %w (stop the agent, then run the repair again)", s.Path, ErrChanged)
	}
	return nil
}

// Undo restores the file a Write repaired: the backup named for the
// file's current content replaces it (atomically), and is removed. When
// the file changed since the repair (the agent appended to it), no backup
// matches and nothing is changed: the error lists the backups there are.
func Undo(path string) (string, error) {
	sum, err := fileDigest(path)
	if err != nil {
		return "", err
	}
	backup := path + "." + sum[:16] + backupSuffix
	fi, err := os.Stat(backup)
	if err != nil {
		if !os.IsNotExist(err) {
			return "", err
		}
		others, _ := Backups(path)
		msg := "it was not repaired, or it changed since"
		if len(others) > 0 {
			msg += "; backups: " + strings.Join(others, ", ")
		}
		return "", fmt.Errorf("%s: %w (%s)", path, ErrNoBackup, msg)
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+name+".replay-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	src, err := os.Open(backup)
	if err != nil {
		tmp.Close()
		return "", err
	}
	_, err = io.Copy(tmp, src)
	src.Close()
	if err == nil {
		err = tmp.Chmod(fi.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	syncDir(dir)
	return backup, os.Remove(backup)
}

// Backups lists the backups Write made of path, by name.
func Backups(path string) ([]string, error) {
	m, err := filepath.Glob(globEscape(path) + ".*" + backupSuffix)
	sort.Strings(m)
	return m, err
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyFile copies src to a new file dst (never over an existing one),
// synced.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%s exists: the same repair was written before (undo it first)", dst)
		}
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
