package replayproxy_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openFile(t *testing.T, path string, o replayproxy.StoreOptions) *replayproxy.FileStore {
	t.Helper()
	s, err := replayproxy.OpenFileStore(path, o)
	require.NoError(t, err)
	return s
}

func getOne(t *testing.T, s replayhttp.Store, k replayhttp.Key) []string {
	t.Helper()
	got, err := s.Get(context.Background(), k)
	require.NoError(t, err)
	var out []string
	for _, d := range got {
		out = append(out, string(d))
	}
	return out
}

// The file store keeps its turns across a restart, byte for byte (no
// escaping of &, <, > nor compaction of white space), drops the expired
// ones, and stays within its bounds.
func TestFileStoreSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns")
	ctx := context.Background()
	s := openFile(t, path, replayproxy.StoreOptions{MaxTurns: 3})
	want := map[string]string{}
	for _, id := range []string{"1", "2", "3", "4"} {
		doc := string(turnOf(t, sigFor(id), "toolu_"+id).AppendJSON(nil))
		if id == "4" {
			doc = "{\"a\": \"Q&A <b>\\u0026\",\n  \"b\":\t[1, 2]}"
		}
		require.NoError(t, s.Put(ctx, fkey(id), []byte(doc)))
		want[id] = doc
	}
	require.NoError(t, s.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	s = openFile(t, path, replayproxy.StoreOptions{MaxTurns: 3})
	assert.Equal(t, 3, s.Len(), "the newest within the bounds")
	assert.Empty(t, getOne(t, s, fkey("1")))
	for _, id := range []string{"2", "3", "4"} {
		assert.Equal(t, []string{want[id]}, getOne(t, s, fkey(id)), "byte for byte")
	}
	require.NoError(t, s.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(b), "\nR "), "rewritten with the live records")

	// Expired records are not served, and not written again.
	s = openFile(t, path, replayproxy.StoreOptions{MaxTurns: 3, TTL: time.Millisecond})
	time.Sleep(5 * time.Millisecond)
	assert.Empty(t, getOne(t, s, fkey("4")))
	require.NoError(t, s.Close())
	s = openFile(t, path, replayproxy.StoreOptions{})
	assert.Zero(t, s.Len())
	require.NoError(t, s.Close())
}

// A sealed turn whose provider members hold white space and characters
// encoding/json escapes comes back from a restart as it was captured: it
// audits without replay/altered-item and encodes as before.
func TestFileStoreSealedTurnAfterRestart(t *testing.T) {
	c, err := replay.Lookup("anthropic", "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	tu, err := c.Decode([]byte("{\"type\":\"message\",\"model\":\"claude-sonnet-4-5\",\"content\":[\n" +
		"  {\"type\": \"thinking\", \"thinking\": \"Q&A <check>\", \"signature\": \"" + sigFor("S") + "\"},\n" +
		"  {\"type\": \"tool_use\", \"id\": \"toolu_S\", \"name\": \"f\", \"input\": {\"q\": \"a&b\"}, \"caller\": {\"type\": \"direct\",\n    \"via\": [1, 2]}}\n" +
		"],\"stop_reason\":\"tool_use\"}"))
	require.NoError(t, err)
	tu.Seal()
	before, err := c.Encode(tu)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "turns")
	s := openFile(t, path, replayproxy.StoreOptions{})
	require.NoError(t, s.Put(context.Background(), fkey("S"), tu.AppendJSON(nil)))
	require.NoError(t, s.Close())
	s = openFile(t, path, replayproxy.StoreOptions{})
	defer s.Close()
	got := getOne(t, s, fkey("S"))
	require.Len(t, got, 1)
	assert.Equal(t, string(tu.AppendJSON(nil)), got[0])
	back, err := replay.UnmarshalTurn([]byte(got[0]))
	require.NoError(t, err)
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{back}}, replay.Target{API: "anthropic", Model: "claude-sonnet-4-5"})
	for _, v := range rep.Violations {
		assert.NotEqual(t, replay.RuleAlteredItem, v.Rule)
	}
	after, err := c.Encode(back)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// A document larger than the store keeps is refused at Put, with the
// reason; the turns already kept stay, through a rewrite and a restart.
func TestFileStoreOversizedRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns")
	ctx := context.Background()
	o := replayproxy.StoreOptions{MaxBytes: 4000, MaxEntryBytes: 1000}
	s := openFile(t, path, o)
	for i := 0; i < 50; i++ {
		require.NoError(t, s.Put(ctx, fkey(strconv.Itoa(i)), []byte(fmt.Sprintf(`{"n":%d}`, i))))
	}
	err := s.Put(ctx, fkey("big"), []byte(`{"x":"`+strings.Repeat("x", 2000)+`"}`))
	var ee *replayhttp.EntryError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "a document of 2008 bytes is larger than the file store keeps (1000")
	assert.Equal(t, 50, s.Len())
	require.NoError(t, s.Close())
	s = openFile(t, path, o)
	defer s.Close()
	assert.Equal(t, 50, s.Len(), "50 turns before the restart, 50 after")
	assert.Equal(t, []string{`{"n":49}`}, getOne(t, s, fkey("49")))
}

// One process holds the file: a second store on it is refused with a
// clear error until the first is closed. Within the process, concurrent
// Puts all survive.
func TestFileStoreLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns")
	s := openFile(t, path, replayproxy.StoreOptions{})
	_, err := replayproxy.OpenFileStore(path, replayproxy.StoreOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is in use by another process (pid "+strconv.Itoa(os.Getpid())+"): one proxy per file")
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 250; i++ {
				assert.NoError(t, s.Put(context.Background(), fkey(fmt.Sprintf("%d-%d", w, i)), []byte(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, s.Close())
	s = openFile(t, path, replayproxy.StoreOptions{})
	defer s.Close()
	assert.Equal(t, 2000, s.Len(), "2,000 turns from 8 writers, 2,000 after the restart")
	assert.Equal(t, []string{`{"w":7,"i":249}`}, getOne(t, s, fkey("7-249")))
}

// No file is ever opened through a symbolic link: a link planted where
// the store, its lock or its secret lives is refused and its target left
// as it was; a link where the old store wrote its temporary file is
// ignored (the rewrite's file has a name of its own, made exclusively).
func TestFileStoreSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	write := func() { require.NoError(t, os.WriteFile(target, []byte("precious\n"), 0o644)) }
	intact := func(what string) {
		t.Helper()
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "precious\n", string(b), what)
		fi, _ := os.Stat(target)
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), what)
	}
	for _, name := range []string{"turns", "turns.lock", "turns.secret"} {
		sub := filepath.Join(dir, name+"-case")
		require.NoError(t, os.Mkdir(sub, 0o700))
		write()
		require.NoError(t, os.Symlink(target, filepath.Join(sub, name)))
		_, err := replayproxy.OpenFileStore(filepath.Join(sub, "turns"), replayproxy.StoreOptions{})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "symbolic link", name)
		intact(name)
	}
	sub := filepath.Join(dir, "tmp-case")
	require.NoError(t, os.Mkdir(sub, 0o700))
	write()
	require.NoError(t, os.Symlink(target, filepath.Join(sub, "turns.tmp")))
	s := openFile(t, filepath.Join(sub, "turns"), replayproxy.StoreOptions{MaxTurns: 1})
	for i := 0; i < 5; i++ { // rewrites
		require.NoError(t, s.Put(context.Background(), fkey(strconv.Itoa(i)), []byte(`{"secret":"reasoning"}`)))
	}
	require.NoError(t, s.Close())
	intact("turns.tmp")
	entries, err := os.ReadDir(sub)
	require.NoError(t, err)
	for _, e := range entries {
		fi, err := os.Lstat(filepath.Join(sub, e.Name()))
		require.NoError(t, err)
		if fi.Mode().IsRegular() {
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), e.Name())
		}
		assert.NotContains(t, e.Name(), ".tmp.", "no temporary file is left behind")
	}
}

// The secret is made once, kept beside the file with mode 0600, and found
// again; one readable by others is refused; one given is used instead.
func TestFileStoreSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns")
	s := openFile(t, path, replayproxy.StoreOptions{})
	secret := s.Secret()
	require.Len(t, secret, 32)
	require.NoError(t, s.Close())
	fi, err := os.Stat(path + ".secret")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	s = openFile(t, path, replayproxy.StoreOptions{})
	assert.Equal(t, secret, s.Secret())
	require.NoError(t, s.Close())
	require.NoError(t, os.Chmod(path+".secret", 0o644))
	_, err = replayproxy.OpenFileStore(path, replayproxy.StoreOptions{})
	assert.ErrorContains(t, err, "may be read by others (mode 0644): chmod 600 it")
	given := []byte(strings.Repeat("g", 32))
	other := filepath.Join(t.TempDir(), "turns")
	s = openFile(t, other, replayproxy.StoreOptions{Secret: given})
	assert.Equal(t, given, s.Secret())
	require.NoError(t, s.Close())
	_, err = os.Stat(other + ".secret")
	assert.True(t, os.IsNotExist(err), "no secret is kept when one is given")
}

// childEnv names the store file a child process writes to; childBounds
// its MaxTurns.
const (
	childEnv       = "REPLAY_FILESTORE_CHILD"
	childBoundsEnv = "REPLAY_FILESTORE_CHILD_TURNS"
	childFromEnv   = "REPLAY_FILESTORE_CHILD_FROM"
)

// childDoc is the document the child puts for sequence number n: its key
// and its bytes say n, so that what survives can be checked.
func childDoc(n int) (replayhttp.Key, []byte) {
	pad := strings.Repeat("r", n%997)
	if n%9 == 4 {
		pad = strings.Repeat("R", 1<<20) // a write long enough for a kill to land in
	}
	return replayhttp.Key{Tenant: "t", Conversation: "c" + strconv.Itoa(n)},
		[]byte(fmt.Sprintf("{\"n\": %d,\n \"text\": \"%s & <done>\"}", n, pad))
}

// TestFileStoreChild is the child process of the crash tests: it puts
// documents from the sequence number it was given, and prints each number
// once its Put has returned.
func TestFileStoreChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("run by the crash tests as a child process")
	}
	turns, _ := strconv.Atoi(os.Getenv(childBoundsEnv))
	from, _ := strconv.Atoi(os.Getenv(childFromEnv))
	s, err := replayproxy.OpenFileStore(path, replayproxy.StoreOptions{MaxTurns: turns})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	w := bufio.NewWriter(os.Stdout)
	for n := from; ; n++ {
		k, doc := childDoc(n)
		if err := s.Put(context.Background(), k, doc); err != nil {
			fmt.Fprintln(w, "put:", err)
			w.Flush()
			os.Exit(4)
		}
		fmt.Fprintln(w, n)
		w.Flush()
	}
}

// startChild starts the child writing to path from sequence from, and
// returns it with a channel of the sequence numbers it acknowledged.
func startChild(t *testing.T, path string, turns, from int) (*exec.Cmd, *acks) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileStoreChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path, childBoundsEnv+"="+strconv.Itoa(turns), childFromEnv+"="+strconv.Itoa(from))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	a := &acks{last: from - 1, done: make(chan struct{})}
	go a.read(out)
	return cmd, a
}

// acks collects what a child acknowledged.
type acks struct {
	mu    sync.Mutex
	last  int
	other []string
	done  chan struct{}
}

func (a *acks) read(r interface{ Read([]byte) (int, error) }) {
	defer close(a.done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		a.mu.Lock()
		if err != nil {
			a.other = append(a.other, sc.Text())
		} else {
			a.last = n
		}
		a.mu.Unlock()
	}
}

// kill -9 of a writer at random points, again and again on one file: every
// Put that returned survives, byte for byte; at most the record being
// written is lost (skipped, counted); nothing else is read. With small
// bounds the kills also land in rewrites, which leave the old file or the
// new one: the newest turns within the bounds survive.
func TestFileStoreKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, turns := range []int{100000, 8} {
		t.Run("bounds "+strconv.Itoa(turns), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "turns")
			rng := rand.New(rand.NewSource(int64(turns)))
			next, skipped := 0, uint64(0)
			for round := 0; round < 12; round++ {
				cmd, a := startChild(t, path, turns, next)
				// Let it write a while: a few to a few hundred Puts.
				deadline := time.Now().Add(10 * time.Second)
				wantAcks := next + 1 + rng.Intn(30)
				for {
					a.mu.Lock()
					last := a.last
					a.mu.Unlock()
					if last >= wantAcks || time.Now().After(deadline) {
						break
					}
					time.Sleep(time.Duration(rng.Intn(300)) * time.Microsecond)
				}
				time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
				_ = cmd.Wait()
				<-a.done
				require.Empty(t, a.other, "the child failed")
				acked := a.last
				require.Greater(t, acked, next, "the child acknowledged nothing in round %d", round)

				s := openFile(t, path, replayproxy.StoreOptions{MaxTurns: turns})
				skipped += s.SkippedEntries()
				// The one being written may have made it whole; nothing else.
				extra := 0
				for n := acked + 1; n <= acked+2; n++ {
					k, doc := childDoc(n)
					if got := getOne(t, s, k); len(got) > 0 {
						require.Equal(t, []string{string(doc)}, got)
						extra++
					}
				}
				require.LessOrEqual(t, extra, 1)
				newest := acked + extra
				oldest := max(newest-turns+1, 0)
				for n := oldest; n <= acked; n++ {
					k, doc := childDoc(n)
					require.Equal(t, []string{string(doc)}, getOne(t, s, k), "round %d: acknowledged Put %d lost", round, n)
				}
				require.Equal(t, min(acked+1+extra, turns), s.Len(), "round %d", round)
				require.NoError(t, s.Close())
				next = acked + 1 + extra
			}
			t.Logf("12 kills; %d torn records skipped on reopening", skipped)
			assert.LessOrEqual(t, skipped, uint64(12), "at most the record being written, per kill")
		})
	}
}

// Two processes on one file: the second refuses to start, with the
// holder's pid, and the first's turns all survive (where an unlocked file
// lost half of them to two writers rewriting it in turn).
func TestFileStoreSecondProcessRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "turns")
	s := openFile(t, path, replayproxy.StoreOptions{})
	for n := 0; n < 1000; n++ {
		k, doc := childDoc(n)
		require.NoError(t, s.Put(context.Background(), k, doc))
	}
	cmd, a := startChild(t, path, 100000, 1000)
	err := cmd.Wait()
	<-a.done
	require.Error(t, err)
	require.Len(t, a.other, 1)
	assert.Contains(t, a.other[0], "open: replayproxy: the store file "+path+" is in use by another process (pid "+strconv.Itoa(os.Getpid())+")")
	for n := 1000; n < 2000; n++ {
		k, doc := childDoc(n)
		require.NoError(t, s.Put(context.Background(), k, doc))
	}
	require.NoError(t, s.Close())
	s = openFile(t, path, replayproxy.StoreOptions{})
	defer s.Close()
	assert.Equal(t, 2000, s.Len())
	assert.Zero(t, s.SkippedEntries())
}
