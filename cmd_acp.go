package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"talaria/loop/acp"
	"talaria/loop/app"
)

// acpCmd runs `talaria acp`: an Agent Client Protocol agent on stdio for
// editors (Zed, JetBrains, Neovim) and clients such as acpx. stdout
// carries protocol messages only; logs go to stderr and talaria.log.
func acpCmd(o *options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "talaria acp: unexpected arguments %s (flags go before the command: talaria --yolo acp)\n", strings.Join(args, " "))
		return app.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return acp.Serve(ctx, acp.Options{Flags: o.flags, Name: "talaria", Version: strings.TrimPrefix(version, "talaria "),
		Stdin: stdin, Stdout: stdout, Stderr: app.SafeWriter(stderr)})
}
