// Command euid prints its real and effective user ids, so a test can see
// whether a setuid copy of it gained privileges.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Printf("uid=%d euid=%d\n", os.Getuid(), os.Geteuid()) }
