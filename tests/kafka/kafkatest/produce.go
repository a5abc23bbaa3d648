package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// ProduceLines writes one record per line, without keys, to topic with
// `kcat -P`, like Produce, but returns its error instead of failing the
// test, so that a goroutine producing while weir crashes may call it.
// Errors: kcat missing or failing, a line holding a newline, or a run
// longer than KcatTimeout.
func ProduceLines(addr, topic string, lines []string) error {
	path, err := exec.LookPath("kcat")
	if err != nil {
		return err
	}
	var in strings.Builder
	for _, l := range lines {
		if strings.Contains(l, "\n") {
			return fmt.Errorf("ProduceLines: line %q contains a newline", l)
		}
		in.WriteString(l)
		in.WriteByte('\n')
	}
	ctx, cancel := context.WithTimeout(context.Background(), KcatTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-P", "-b", addr, "-t", topic)
	cmd.Stdin = strings.NewReader(in.String())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kcat -P -t %s (%d lines): %v\n%s", topic, len(lines), err, errb.String())
	}
	return nil
}
