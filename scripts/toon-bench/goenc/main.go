// Command goenc encodes JSON to TOON with dispatch/toon, for the toon-bench
// script's byte-for-byte and throughput comparison with the reference
// encoder. It mirrors ref.mjs:
//
//	goenc encode <in.json> <opts.json|-> <out.toon>
//	goenc batch <dir>               every <dir>/*.json (not *.opts.json) to *.go.toon
//	goenc bench <in.json> <iters>   print "<MB/s> <ms/op>" for parse + encode
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"dispatch/toon"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "goenc:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: goenc encode|batch|bench [args]")
	}
	switch mode, args := args[0], args[1:]; {
	case mode == "encode" && len(args) == 3:
		return encodeFile(args[0], args[1], args[2])
	case mode == "batch" && len(args) == 1:
		return batch(args[0])
	case mode == "bench" && len(args) == 2:
		return bench(args[0], args[1])
	}
	return fmt.Errorf("bad arguments %q", args)
}

// refOptions are the reference encoder's option names, as ref.mjs reads them.
type refOptions struct {
	Indent       int    `json:"indent"`
	Delimiter    string `json:"delimiter"`
	KeyFolding   string `json:"keyFolding"`
	FlattenDepth *int   `json:"flattenDepth"`
}

func readOptions(path string) (toon.EncodeOptions, error) {
	var opts toon.EncodeOptions
	if path == "-" {
		return opts, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return opts, err
	}
	var ro refOptions
	if err := json.Unmarshal(data, &ro); err != nil {
		return opts, fmt.Errorf("%s: %w", path, err)
	}
	opts.Indent = ro.Indent
	if ro.Delimiter != "" {
		opts.Delimiter = ro.Delimiter[0]
	}
	opts.KeyFolding = ro.KeyFolding
	if ro.FlattenDepth != nil {
		opts.FlattenDepth = *ro.FlattenDepth
		if opts.FlattenDepth == 0 { // the spec's 0 folds nothing; Go's 0 is unlimited
			opts.FlattenDepth = -1
		}
	}
	return opts, nil
}

func encodeFile(in, optsPath, out string) error {
	opts, err := readOptions(optsPath)
	if err != nil {
		return err
	}
	r, err := os.Open(in)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := toon.EncodeJSON(w, r, opts); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", in, err)
	}
	return w.Close()
}

func batch(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".opts.json") {
			continue
		}
		base := strings.TrimSuffix(f, ".json")
		if err := encodeFile(f, base+".opts.json", base+".go.toon"); err != nil {
			return err
		}
	}
	return nil
}

func bench(in, itersArg string) error {
	iters, err := strconv.Atoi(itersArg)
	if err != nil || iters < 1 {
		return fmt.Errorf("bad iteration count %q", itersArg)
	}
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	once := func() error {
		out.Reset()
		return toon.EncodeJSON(&out, bytes.NewReader(data), toon.EncodeOptions{})
	}
	for i := 0; i < max(1, iters/5); i++ { // warm up, as ref.mjs does
		if err := once(); err != nil {
			return err
		}
	}
	start := time.Now()
	for i := 0; i < iters; i++ {
		if err := once(); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	mbps := float64(len(data)) * float64(iters) / elapsed.Seconds() / 1e6
	fmt.Printf("%.2f %.3f\n", mbps, float64(elapsed.Nanoseconds())/float64(iters)/1e6)
	return nil
}
