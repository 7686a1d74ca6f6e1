// The client-go 1.20 variant of the informer benchmark: a shared index informer over the
// benchmark's Pods with a namespace index, a handler that adds keys to a rate-limiting work
// queue, and one worker that looks each key up in the indexer, then calls Forget and Done:
// the pipeline run-kubets.ts measures, in Go.
//
// Started by main.ts (see client-go.ts) with the runner config JSON as its only argument and
// Node's IPC channel on the file descriptor named by NODE_CHANNEL_FD: one JSON message per
// line each way, the messages runner.ts defines ('synced', 'patch', 'result', 'error').
// With no channel it writes its messages to stdout and expects none, so `-probe` works
// from a shell.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

// The label the parent's patcher sets (fixture.ts generationLabel).
const generationLabel = "bench.kubets.dev/generation"

type runnerConfig struct {
	Variant string `json:"variant"`
	Round   int    `json:"round"`
	Pods    int    `json:"pods"`
	// Times each Pod is patched in the update window (fixture.ts generationValue).
	UpdatesPerPod int    `json:"updatesPerPod"`
	Namespace     string `json:"namespace"`
	Kubeconfig    string `json:"kubeconfig"`
	TimeoutMs     int64  `json:"timeoutMs"`
}

// The fields of stats.ts RunnerResult, same names and units. NaN cannot be sent as JSON, so
// a figure this runner cannot measure is left out (the parent reads a missing one as NaN).
type runnerResult struct {
	Variant             string   `json:"variant"`
	Round               int      `json:"round"`
	Pods                int      `json:"pods"`
	Cached              int      `json:"cached"`
	SyncMs              float64  `json:"syncMs"`
	DrainMs             float64  `json:"drainMs"`
	SyncPeakRssBytes    float64  `json:"syncPeakRssBytes"`
	BaselineHeapBytes   float64  `json:"baselineHeapBytes"`
	StoreHeapBytes      float64  `json:"storeHeapBytes"`
	HeapPerObjectBytes  float64  `json:"heapPerObjectBytes"`
	RssAfterSyncBytes   float64  `json:"rssAfterSyncBytes"`
	Updates             int      `json:"updates"`
	UpdateCpuSeconds    float64  `json:"updateCpuSeconds"`
	UpdateWallMs        float64  `json:"updateWallMs"`
	UpdateSleeps        float64  `json:"updateSleeps"`
	RelistMs            *float64 `json:"relistMs,omitempty"`
	RelistPeakHeapBytes *float64 `json:"relistPeakHeapBytes,omitempty"`
	RelistPeakRatio     *float64 `json:"relistPeakRatio,omitempty"`
	RelistPeakRssBytes  *float64 `json:"relistPeakRssBytes,omitempty"`
	RelistLists         int      `json:"relistLists"`
	WorkMisses          int      `json:"workMisses"`
}

type message struct {
	Type       string        `json:"type"`
	Generation string        `json:"generation,omitempty"`
	Result     *runnerResult `json:"result,omitempty"`
	Message    string        `json:"message,omitempty"`
}

// channel is the parent's IPC pipe, or stdout alone when there is none.
type channel struct {
	out   *os.File
	in    *bufio.Reader
	mutex sync.Mutex
}

func openChannel() *channel {
	fdText := os.Getenv("NODE_CHANNEL_FD")
	if fdText == "" {
		return &channel{out: os.Stdout}
	}
	fd, err := strconv.Atoi(fdText)
	if err != nil {
		fail(fmt.Errorf("NODE_CHANNEL_FD=%q is not a file descriptor", fdText))
	}
	file := os.NewFile(uintptr(fd), "node-ipc")
	return &channel{out: file, in: bufio.NewReader(file)}
}

func (c *channel) send(m message) {
	line, err := json.Marshal(m)
	if err != nil {
		fail(err)
	}
	c.mutex.Lock()
	defer c.mutex.Unlock()
	if _, err := c.out.Write(append(line, '\n')); err != nil {
		fail(err)
	}
}

// receive returns the next message of the given type, skipping Node's internal ones.
func (c *channel) receive(kind string) (message, error) {
	if c.in == nil {
		return message{}, errors.New("no IPC channel to receive from (NODE_CHANNEL_FD unset)")
	}
	for {
		line, err := c.in.ReadBytes('\n')
		if err != nil {
			return message{}, fmt.Errorf("reading from the parent: %w", err)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return message{}, fmt.Errorf("a message from the parent is not JSON: %w", err)
		}
		if m.Type == kind {
			return m, nil
		}
	}
}

var ipc *channel

func fail(err error) {
	fmt.Fprintf(os.Stderr, "client-go runner: %v\n", err)
	if ipc != nil {
		ipc.send(message{Type: "error", Message: err.Error()})
	}
	os.Exit(1)
}

// rusage is this process's getrusage(RUSAGE_SELF).
func rusage() syscall.Rusage {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail(err)
	}
	return usage
}

// cpuSeconds is this process's user + system CPU time.
func cpuSeconds() float64 {
	usage := rusage()
	seconds := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return seconds(usage.Utime) + seconds(usage.Stime)
}

// voluntarySwitches counts the times this process's threads went to sleep waiting
// (ru_nvcsw), as the Node runners report them.
func voluntarySwitches() float64 {
	return float64(rusage().Nvcsw)
}

// peakRssBytes is the highest RSS of this process so far (ru_maxrss, KiB on Linux).
func peakRssBytes() float64 {
	return float64(rusage().Maxrss) * 1024
}

// rssBytes reads VmRSS from /proc/self/status.
func rssBytes() float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if !strings.HasPrefix(line, "VmRSS:") {
			continue
		}
		fields := strings.Fields(line)
		kib, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			fail(fmt.Errorf("VmRSS line %q: %w", line, err))
		}
		return kib * 1024
	}
	fail(errors.New("no VmRSS in /proc/self/status"))
	return 0
}

// heapAfterGC is HeapAlloc after a full collection.
func heapAfterGC() float64 {
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return float64(stats.HeapAlloc)
}

// counters mirror runner.ts Counters: the handler counts adds and this round's updates, the
// worker finished keys; the update window runs from the first update event to the moment the
// last expected one was worked with the queue empty.
type counters struct {
	mutex       sync.Mutex
	pods        int
	adds        int
	workedKeys  int
	updates     int
	misses      int
	generation  string
	expected    int
	cpuStart    float64
	sleepsStart float64
	wallStart   time.Time
	initialDone chan struct{}
	updatesDone chan [3]float64
}

func (c *counters) added() {
	c.mutex.Lock()
	c.adds++
	c.mutex.Unlock()
}

func (c *counters) updated(pod *v1.Pod) {
	c.mutex.Lock()
	defer c.mutex.Unlock()
	// Pass k of the round sets "<generation>.<k>" (fixture.ts generationValue).
	if c.generation == "" || !strings.HasPrefix(pod.Labels[generationLabel], c.generation+".") {
		return
	}
	if c.updates == 0 {
		c.cpuStart = cpuSeconds()
		c.sleepsStart = voluntarySwitches()
		c.wallStart = time.Now()
	}
	c.updates++
}

func (c *counters) worked(queueEmpty, found bool) {
	c.mutex.Lock()
	defer c.mutex.Unlock()
	c.workedKeys++
	if !found {
		c.misses++
	}
	if c.initialDone != nil && c.workedKeys >= c.pods && queueEmpty {
		close(c.initialDone)
		c.initialDone = nil
	}
	if c.updatesDone != nil && c.updates >= c.expected && c.updates > 0 && queueEmpty {
		cpu := cpuSeconds() - c.cpuStart
		wallMs := float64(time.Since(c.wallStart).Microseconds()) / 1000
		c.updatesDone <- [3]float64{cpu, wallMs, voluntarySwitches() - c.sleepsStart}
		c.updatesDone = nil
		// The relist that follows calls UpdateFunc for every Pod again: not this window's.
		c.generation = ""
	}
}

// expectUpdates starts counting updates that set generation.
func (c *counters) expectUpdates(generation string, expected int) chan [3]float64 {
	c.mutex.Lock()
	defer c.mutex.Unlock()
	c.generation = generation
	c.expected = expected
	c.updates = 0
	done := make(chan [3]float64, 1)
	c.updatesDone = done
	return done
}

// expiringWatch forwards a watch and, when expire fires, ends it as kube-apiserver does when
// the watch's resourceVersion was compacted away: an ERROR event carrying a 410 Expired
// Status (envtest cannot compact on demand; expire.ts does the same for kubets).
type expiringWatch struct {
	inner  watch.Interface
	events chan watch.Event
	done   chan struct{}
	once   sync.Once
}

func newExpiringWatch(inner watch.Interface, expire <-chan struct{}) *expiringWatch {
	w := &expiringWatch{inner: inner, events: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(w.events)
		for {
			select {
			case event, open := <-inner.ResultChan():
				if !open {
					return
				}
				select {
				case w.events <- event:
				case <-w.done:
					return
				}
			case <-expire:
				expired := &metav1.Status{
					Status:  metav1.StatusFailure,
					Code:    410,
					Reason:  metav1.StatusReasonExpired,
					Message: "too old resource version (forced by the kubets benchmark)",
				}
				select {
				case w.events <- watch.Event{Type: watch.Error, Object: expired}:
				case <-w.done:
				}
				return
			case <-w.done:
				return
			}
		}
	}()
	return w
}

func (w *expiringWatch) Stop() {
	w.once.Do(func() {
		close(w.done)
		w.inner.Stop()
	})
}

func (w *expiringWatch) ResultChan() <-chan watch.Event { return w.events }

// peakSampler samples HeapAlloc and RSS every millisecond until stopped.
type peakSampler struct {
	peakHeap float64
	peakRss  float64
	stop     chan struct{}
	stopped  chan struct{}
}

func startPeakSampler() *peakSampler {
	s := &peakSampler{stop: make(chan struct{}), stopped: make(chan struct{})}
	sample := func() {
		var stats runtime.MemStats
		runtime.ReadMemStats(&stats)
		if heap := float64(stats.HeapAlloc); heap > s.peakHeap {
			s.peakHeap = heap
		}
		if rss := rssBytes(); rss > s.peakRss {
			s.peakRss = rss
		}
	}
	sample()
	go func() {
		defer close(s.stopped)
		ticker := time.NewTicker(time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				sample()
			case <-s.stop:
				sample()
				return
			}
		}
	}()
	return s
}

func (s *peakSampler) finish() {
	close(s.stop)
	<-s.stopped
}

// waitFor polls condition every millisecond, failing after timeout.
func waitFor(what string, timeout time.Duration, condition func() bool) {
	deadline := time.Now().Add(timeout)
	for !condition() {
		if time.Now().After(deadline) {
			fail(fmt.Errorf("%s: no result after %v", what, timeout))
		}
		time.Sleep(time.Millisecond)
	}
}

func milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-probe" {
		// The smoke check of the build: the client-go packages linked and initialised.
		fmt.Printf("{\"probe\":\"ok\",\"go\":%q,\"podResource\":%q}\n", runtime.Version(),
			v1.SchemeGroupVersion.WithResource("pods").String())
		return
	}
	ipc = openChannel()
	if len(os.Args) != 2 {
		fail(errors.New("usage: bench-client-go '<runner config JSON>' | -probe"))
	}
	var config runnerConfig
	if err := json.Unmarshal([]byte(os.Args[1]), &config); err != nil {
		fail(fmt.Errorf("the runner config is not JSON: %w", err))
	}
	if config.Pods <= 0 || config.Namespace == "" || config.Kubeconfig == "" {
		fail(fmt.Errorf("the runner config needs pods > 0, a namespace and a kubeconfig: %s", os.Args[1]))
	}
	timeout := time.Duration(config.TimeoutMs) * time.Millisecond

	rest, err := clientcmd.BuildConfigFromFlags("", config.Kubeconfig)
	if err != nil {
		fail(err)
	}
	// No client-side rate limit, as the Node runners (qps: -1).
	rest.QPS = -1
	client, err := kubernetes.NewForConfig(rest)
	if err != nil {
		fail(err)
	}
	pods := client.CoreV1().Pods(config.Namespace)

	var listMutex sync.Mutex
	lists := 0
	var lastListed *v1.Pod
	var lastListStart time.Time
	expire := make(chan struct{}, 1)
	listWatch := &cache.ListWatch{
		ListFunc: func(options metav1.ListOptions) (k8sruntime.Object, error) {
			start := time.Now()
			list, err := pods.List(context.Background(), options)
			listMutex.Lock()
			defer listMutex.Unlock()
			lists++
			lastListStart = start
			if err == nil && len(list.Items) > 0 {
				// The reflector caches pointers into list.Items: the relist is done once the
				// indexer holds this very object.
				lastListed = &list.Items[len(list.Items)-1]
			}
			return list, err
		},
		WatchFunc: func(options metav1.ListOptions) (watch.Interface, error) {
			inner, err := pods.Watch(context.Background(), options)
			if err != nil {
				return nil, err
			}
			return newExpiringWatch(inner, expire), nil
		},
	}
	informer := cache.NewSharedIndexInformer(listWatch, &v1.Pod{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	indexer := informer.GetIndexer()
	queue := workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter())
	count := &counters{pods: config.Pods, initialDone: make(chan struct{})}
	initialDone := count.initialDone
	enqueue := func(obj interface{}) {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err == nil {
			queue.Add(key)
		}
	}
	informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			count.added()
			enqueue(obj)
		},
		UpdateFunc: func(_, obj interface{}) {
			if pod, ok := obj.(*v1.Pod); ok {
				count.updated(pod)
			}
			enqueue(obj)
		},
		DeleteFunc: enqueue,
	})
	go func() {
		for {
			key, shutdown := queue.Get()
			if shutdown {
				return
			}
			// The "sync": read the object from the cache.
			obj, exists, _ := indexer.GetByKey(key.(string))
			found := false
			if pod, ok := obj.(*v1.Pod); exists && ok {
				found = pod.ResourceVersion != ""
			}
			queue.Forget(key)
			queue.Done(key)
			count.worked(queue.Len() == 0, found)
		}
	}()

	baseline := heapAfterGC()
	stop := make(chan struct{})
	t0 := time.Now()
	go informer.Run(stop)
	waitFor("initial sync", timeout, informer.HasSynced)
	syncMs := milliseconds(time.Since(t0))
	select {
	case <-initialDone:
	case <-time.After(timeout):
		fail(fmt.Errorf("initial keys: no result after %v", timeout))
	}
	drainMs := milliseconds(time.Since(t0))
	syncPeakRss := peakRssBytes()
	cached := len(indexer.ListKeys())
	afterSync := heapAfterGC()
	rssAfterSync := rssBytes()

	updatesDone := make(chan chan [3]float64, 1)
	go func() {
		patch, err := ipc.receive("patch")
		if err != nil {
			fail(err)
		}
		updatesPerPod := config.UpdatesPerPod
		if updatesPerPod < 1 {
			updatesPerPod = 1
		}
		updatesDone <- count.expectUpdates(patch.Generation, config.Pods*updatesPerPod)
	}()
	ipc.send(message{Type: "synced"})
	var update [3]float64
	select {
	case done := <-updatesDone:
		select {
		case update = <-done:
		case <-time.After(timeout):
			fail(fmt.Errorf("update events: no result after %v", timeout))
		}
	case <-time.After(timeout):
		fail(fmt.Errorf("no patch message after %v", timeout))
	}

	beforeRelist := heapAfterGC() - baseline
	listMutex.Lock()
	listsBefore := lists
	listMutex.Unlock()
	sampler := startPeakSampler()
	expire <- struct{}{}
	// The reflector backs off (800 ms and more, jittered) before it lists again after a
	// watch error: the relist is timed from its list request, not from the expiry.
	waitFor("relist", timeout, func() bool {
		listMutex.Lock()
		last, relisted := lastListed, lists > listsBefore
		listMutex.Unlock()
		if !relisted {
			return false
		}
		if last == nil {
			return true
		}
		key, _ := cache.MetaNamespaceKeyFunc(last)
		obj, exists, _ := indexer.GetByKey(key)
		cachedPod, ok := obj.(*v1.Pod)
		return exists && ok && cachedPod == last
	})
	relistEnd := time.Now()
	sampler.finish()
	listMutex.Lock()
	relistMs := milliseconds(relistEnd.Sub(lastListStart))
	relistLists := lists - listsBefore
	listMutex.Unlock()
	peakHeap := sampler.peakHeap - baseline
	peakRatio := peakHeap / beforeRelist
	peakRss := sampler.peakRss

	result := &runnerResult{
		Variant:             config.Variant,
		Round:               config.Round,
		Pods:                config.Pods,
		Cached:              cached,
		SyncMs:              syncMs,
		DrainMs:             drainMs,
		SyncPeakRssBytes:    syncPeakRss,
		BaselineHeapBytes:   baseline,
		StoreHeapBytes:      afterSync - baseline,
		HeapPerObjectBytes:  (afterSync - baseline) / float64(config.Pods),
		RssAfterSyncBytes:   rssAfterSync,
		Updates:             count.updates,
		UpdateCpuSeconds:    update[0],
		UpdateWallMs:        update[1],
		UpdateSleeps:        update[2],
		RelistMs:            &relistMs,
		RelistPeakHeapBytes: &peakHeap,
		RelistPeakRatio:     &peakRatio,
		RelistPeakRssBytes:  &peakRss,
		RelistLists:         relistLists,
		WorkMisses:          count.misses,
	}
	line, _ := json.Marshal(result)
	fmt.Fprintf(os.Stdout, "%s\n", line)
	ipc.send(message{Type: "result", Result: result})
	close(stop)
	queue.ShutDown()
	os.Exit(0)
}
