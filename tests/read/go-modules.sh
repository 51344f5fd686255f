# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the command tests that build Go programs (cmd-gobuild.sh,
# cmd-embedded.sh): Go's environment kept inside the test's directory,
# offline, and go_app_modules, which makes src/app (module example.com/app,
# a git repository) using src/lib (example.com/lib v1.2.3, replaced by
# the directory ../lib).
export GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local HOME="$T"
export CGO_ENABLED=0 GOOS=linux

go_app_modules() {
        mkdir -p src/app src/lib
        cat > src/lib/go.mod <<'GOEOF'
module example.com/lib

go 1.19
GOEOF
        cat > src/lib/lib.go <<'GOEOF'
package lib

func Greeting() string { return "hello from lib" }
GOEOF
        cat > src/app/go.mod <<'GOEOF'
module example.com/app

go 1.19

require example.com/lib v1.2.3

replace example.com/lib => ../lib
GOEOF
        cat > src/app/main.go <<'GOEOF'
package main

import (
	"fmt"

	"example.com/lib"
)

var version = "dev"

func main() { fmt.Println(lib.Greeting(), version) }
GOEOF
        (cd src/app && git init -q && git add . && git -c user.email=t@example.org -c user.name=t commit -qm init) ||
                fatal "cannot make the module's git repository"
}
