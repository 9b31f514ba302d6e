//go:build bench

package bench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/test/harness"
)

var (
	offlineScales  = flag.String("offline-scales", "1,10", "TestOfflineScale: world sizes, in units of 1,000 Gateways, 10,000 HTTPRoutes and 5,000 RateLimitPolicies")
	offlineAgainst = flag.String("offline-against", "d6284c5", "TestOfflineScale: a commit whose binary runs the same inputs in the same run (\"\": none)")
	offlineRounds  = flag.Int("offline-rounds", 1, "TestOfflineScale: runs of each command per binary, alternated; the best is reported")
)

// offlineCommand is one command TestOfflineScale runs over each world ({} is the world's folder).
type offlineCommand struct {
	name string
	args []string
	// ours: only this tree's binary runs it (the binary of -offline-against may not finish).
	ours bool
	// world is the generated world it reads: "" the plain one, "nginx-gateway-fabric" the one with
	// NGINX Gateway Fabric's policies and Services in place of the RateLimitPolicies.
	world string
}

var offlineCommands = []offlineCommand{
	{name: "validate", args: []string{"validate", "-f", "{}"}},
	{name: "effective", args: []string{"effective", "-f", "{}", "--kind", "RateLimitPolicy", "-o", "json"}},
	// kgateway's kinds managed: its profile reviews every route and Gateway too. Before c642772 each
	// of those reviews derived kgateway's world anew (1x ran for more than 10 minutes).
	{name: "validate kgateway", args: []string{"validate", "-f", "{}", "--config", filepath.Join("..", "..", "config", "kgateway", "precedentconfig.yaml")}, ours: true},
	// NGINX Gateway Fabric's world and settings: before 1434ff7 each policy's review derived its
	// world anew (quadratic: 17.8 s at 6,551 objects).
	{name: "validate nginx-gateway-fabric", args: []string{"validate", "-f", "{}", "--config", filepath.Join("..", "..", "config", "nginx-gateway-fabric", "precedentconfig.yaml")}, ours: true, world: ngfWorld},
	// The creation-order check at size: policies in undated pairs on one target, each pair reviewed
	// swapped (PRC-W100). Before 38317f2 each pair re-derived the profile's world and compared every
	// finding's line of the input (NGINX Gateway Fabric's 10x: 20 minutes).
	{name: "validate kgateway, undated pairs", args: []string{"validate", "-f", "{}", "--config", filepath.Join("..", "..", "config", "kgateway", "precedentconfig.yaml")}, ours: true, world: undatedPairsWorld},
	{name: "validate nginx-gateway-fabric, undated pairs", args: []string{"validate", "-f", "{}", "--config", filepath.Join("..", "..", "config", "nginx-gateway-fabric", "precedentconfig.yaml")}, ours: true, world: ngfUndatedPairsWorld},
}

// TestOfflineScale is `make bench-offline`: the generated world written as one YAML file per kind
// (1× is 16,051 objects), then `precedent validate -f` (with the default settings, and with
// config/kgateway's) and `precedent effective -o json` over it, and `validate -f` with
// config/nginx-gateway-fabric's over the world with its policies (1x: 26,051 objects), and both
// profiles' validate over their worlds with the policies in undated pairs, each run as
// a process whose wall time, CPU time (user and system: steadier than wall time on a busy machine)
// and peak RSS (the kernel's maxrss) are reported, for this tree's binary and, alternated with it,
// the binary of -offline-against (but for the commands only this tree's runs: offlineCommand.ours).
func TestOfflineScale(t *testing.T) {
	report("machine: %s", machine())
	dir := t.TempDir()
	bins := map[string]string{}
	var err error
	if bins["this tree"], err = harness.BuildPrecedent(dir); err != nil {
		t.Fatal(err)
	}
	order := []string{"this tree"}
	if *offlineAgainst != "" {
		bins[*offlineAgainst] = buildAt(t, dir, *offlineAgainst)
		order = append(order, *offlineAgainst)
	}
	var scales []int
	for _, s := range strings.Split(*offlineScales, ",") {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n < 1 {
			t.Fatalf("-offline-scales: %q is not a positive integer", s)
		}
		scales = append(scales, n)
	}
	report("%-6s %-9s %-12s %9s %9s %10s %6s %6s", "scale", "objects", "binary", "wall", "cpu", "peak RSS", "exit", "lines")
	for _, n := range scales {
		type world struct {
			in      string
			objects int
		}
		worlds := map[string]world{}
		for _, cmd := range offlineCommands {
			if _, ok := worlds[cmd.world]; !ok {
				in, objects := writeWorldApart(t, filepath.Join(dir, fmt.Sprintf("world%s-%dx", cmd.world, n)), n, cmd.world)
				worlds[cmd.world] = world{in, objects}
			}
			in, objects := worlds[cmd.world].in, worlds[cmd.world].objects
			runs := order
			if cmd.ours {
				runs = order[:1]
			}
			best := map[string]run{}
			for r := 0; r < *offlineRounds; r++ {
				for _, b := range runs {
					args := strings.Split(strings.ReplaceAll(strings.Join(cmd.args, "\x00"), "{}", in), "\x00")
					got := timeRun(t, bins[b], args)
					if cur, ok := best[b]; !ok || got.wall < cur.wall {
						best[b] = got
					}
				}
			}
			for _, b := range runs {
				r := best[b]
				report("%-6s %-9d %-12s %9s %9s %8dMB %6d %6d   %s", fmt.Sprintf("%dx", n), objects, b, r.wall.Round(10*time.Millisecond), r.cpu.Round(10*time.Millisecond), r.rssKB/1024, r.exit, r.lines, cmd.name)
			}
		}
	}
}

// run is one process's figures.
type run struct {
	wall  time.Duration
	cpu   time.Duration // user and system
	rssKB int64
	exit  int
	lines int
}

// timeRun runs bin with args and returns its wall time, peak RSS, exit status and output lines.
func timeRun(t *testing.T, bin string, args []string) run {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out lineCounter // counted, not kept: a kept output would grow this process (writeWorldApart)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := run{wall: time.Since(start), lines: int(out)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	if r.exit > 1 {
		t.Fatalf("%s %s: exit %d: %s", bin, strings.Join(args, " "), r.exit, errb.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = ru.Maxrss
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return r
}

// lineCounter counts the lines written to it.
type lineCounter int

func (c *lineCounter) Write(p []byte) (int, error) {
	*c += lineCounter(bytes.Count(p, []byte("\n")))
	return len(p), nil
}

// worldEnv asks this test binary, run as a child process, to write a world (TestOfflineWriteWorld):
// "n:dir".
const worldEnv = "PRECEDENT_OFFLINE_WORLD"

// writeWorldApart is writeWorld (of flavour: "" or one of writeWorld's) in a child process (this test binary, TestOfflineWriteWorld), so
// that this process stays small. os/exec starts a command in this process's address space
// (CLONE_VM|CLONE_VFORK) and Linux keeps, at the command's exec, that address space's peak RSS as the
// command's own starting maxrss: with the world generated here, every command whose own peak was
// below the generator's reported the generator's (243-263 MB at 1x for both binaries alike; 1.84 GB
// for an effective -o json at 10x that peaks at 1.26-1.36 GB run alone).
func writeWorldApart(t *testing.T, dir string, n int, flavour string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestOfflineWriteWorld$", "-test.count", "1")
	spec := fmt.Sprintf("%s=%d:%s", worldEnv, n, dir)
	if flavour != "" {
		spec += ":" + flavour
	}
	cmd.Env = append(os.Environ(), spec)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("writing the world of scale %d: %v\n%s", n, err, out)
	}
	var objects int
	for _, line := range strings.Split(string(out), "\n") {
		if _, err := fmt.Sscanf(line, "objects %d", &objects); err == nil {
			return dir, objects
		}
	}
	t.Fatalf("writing the world of scale %d: no count of objects in\n%s", n, out)
	return "", 0
}

// TestOfflineWriteWorld is the child process of writeWorldApart: it writes the world that
// PRECEDENT_OFFLINE_WORLD names ("n:dir", or "n:dir:nginx-gateway-fabric" for the world with NGINX
// Gateway Fabric's policies and Services in place of the RateLimitPolicies: gen.NGINXGatewayFabric,
// "n:dir:kgateway-undated-pairs" for the world with two undated TrafficPolicies on each policy's
// target besides: gen.KGatewayUndatedPairs, or "n:dir:nginx-gateway-fabric-undated-pairs" for NGINX
// Gateway Fabric's with its policies in undated pairs: gen.NGINXUndatedPairs) and prints its number
// of objects. Without it, it has nothing to write and passes at once (TestOfflineScale runs it).
func TestOfflineWriteWorld(t *testing.T) {
	spec, ok := os.LookupEnv(worldEnv)
	if !ok {
		return
	}
	n, dir, found := strings.Cut(spec, ":")
	dir, flavour, _ := strings.Cut(dir, ":")
	var scale int
	if _, err := fmt.Sscan(n, &scale); !found || err != nil || scale < 1 || !slices.Contains([]string{"", ngfWorld, undatedPairsWorld, ngfUndatedPairsWorld}, flavour) {
		t.Fatalf("%s=%q: want n:dir or n:dir:flavour (%s, %s or %s), n a positive integer", worldEnv, spec, ngfWorld, undatedPairsWorld, ngfUndatedPairsWorld)
	}
	_, objects := writeWorld(t, dir, scale, flavour)
	fmt.Printf("objects %d\n", objects)
}

// The flavours of the world besides the plain one (writeWorld).
const (
	ngfWorld             = "nginx-gateway-fabric"
	undatedPairsWorld    = "kgateway-undated-pairs"
	ngfUndatedPairsWorld = "nginx-gateway-fabric-undated-pairs"
)

// writeWorld writes the world of scale n (n × 1,000 Gateways, 10,000 routes, 5,000 policies) into
// dir, one file per kind, and returns dir and the number of objects; of flavour ngfWorld, NGINX
// Gateway Fabric's policies and the routes' Services in place of the RateLimitPolicies; of flavour
// undatedPairsWorld, two undated TrafficPolicies on each policy's target besides; of flavour
// ngfUndatedPairsWorld, ngfWorld's with each of its policies undated and an undated copy beside it.
func writeWorld(t *testing.T, dir string, n int, flavour string) (string, int) {
	t.Helper()
	w := gen.Generate(gen.Size{Gateways: 1000 * n, Routes: 10000 * n, Policies: 5000 * n})
	var extra []*unstructured.Unstructured
	switch flavour {
	case ngfWorld, ngfUndatedPairsWorld:
		services, policies := gen.NGINXGatewayFabric(w)
		if flavour == ngfUndatedPairsWorld {
			policies = gen.NGINXUndatedPairs(policies)
		}
		extra = append(services, policies...)
		w.Policies = nil
	case undatedPairsWorld:
		extra = gen.KGatewayUndatedPairs(w)
	}
	objs, err := w.Objects()
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, extra...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]*bytes.Buffer{}
	for _, u := range objs {
		b := files[u.GetKind()]
		if b == nil {
			b = &bytes.Buffer{}
			files[u.GetKind()] = b
		}
		raw, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(raw)
	}
	for kind, b := range files {
		if err := os.WriteFile(filepath.Join(dir, strings.ToLower(kind)+"s.yaml"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, len(objs)
}

// buildAt builds the precedent binary of commit rev (a detached worktree of this repository,
// removed afterwards) into dir.
func buildAt(t *testing.T, dir, rev string) string {
	t.Helper()
	tree := filepath.Join(dir, "tree-"+rev)
	if out, err := exec.Command("git", "worktree", "add", "--detach", tree, rev).CombinedOutput(); err != nil {
		t.Fatalf("checking out %s: %v\n%s", rev, err, out)
	}
	defer exec.Command("git", "worktree", "remove", "--force", tree).Run()
	bin := filepath.Join(dir, "precedent-"+rev)
	build := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", bin, "./cmd/precedent")
	build.Dir = tree
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", rev, err, out)
	}
	return bin
}
