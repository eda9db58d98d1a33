// httpget: GET BASE/data/I.txt for I in 0..N-1 from N goroutines at once,
// each on a connection of its own (no keep-alive), and print "I BODY"
// lines in order; exit 1 on any error (tests/bats/compat.bats).
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

func main() {
	base := os.Args[1]
	n, _ := strconv.Atoi(os.Args[2])
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	lines := make([]string, n)
	bad := false
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r, err := client.Get(fmt.Sprintf("%s/data/%d.txt", base, i%8))
			if err == nil {
				var b []byte
				b, err = io.ReadAll(r.Body)
				r.Body.Close()
				lines[i] = fmt.Sprintf("%d %d %s", i, r.StatusCode, strings.TrimSpace(string(b)))
			}
			if err != nil {
				mu.Lock()
				bad = true
				mu.Unlock()
				lines[i] = fmt.Sprintf("%d error %v", i, err)
			}
		}(i)
	}
	wg.Wait()
	for _, l := range lines {
		fmt.Println(l)
	}
	if bad {
		os.Exit(1)
	}
}
