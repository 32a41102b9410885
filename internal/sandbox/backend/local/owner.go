package local

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
)

// lookupUid turns a user name into a uid. A name that no passwd entry has
// but that is a decimal number is taken as a numeric uid.
func lookupUid(name string) (int, error) {
	return lookupID("user", name, func(n string) (string, error) {
		u, err := user.Lookup(n)
		if err != nil {
			return "", err
		}
		return u.Uid, nil
	})
}

// userName returns the name of uid, or its decimal form when unknown
// ("root" for 0).
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	if uid == 0 {
		return rootName
	}
	return strconv.Itoa(uid)
}

// CheckOwner refuses an owner other than the user this process runs as,
// unless it runs as root: only root can give a file away. A user unknown
// here is refused too. It only reads the user database.
func CheckOwner(owner string) error {
	euid := geteuid()
	if euid == 0 {
		return nil
	}
	uid, err := lookupUid(owner)
	if err != nil {
		return err
	}
	if uid != euid {
		return fmt.Errorf("a local workspace can only be owned by the user the provider runs as, %s (uid %d): "+
			"giving files to %s (uid %d) needs the provider to run as root", userName(euid), euid, owner, uid)
	}
	return nil
}

// OwnUser is the name of the user this process runs as (its decimal uid
// when it has no name).
func OwnUser() string { return userName(geteuid()) }

// geteuid is the effective uid the owner checks act as.
var geteuid = os.Geteuid

// ActAsUIDForTests makes the owner checks act as if the process ran as uid
// (a provider not running as root, in a test run as root) until restore is
// called. Tests only; not safe while other goroutines check owners.
func ActAsUIDForTests(uid int) (restore func()) {
	prev := geteuid
	geteuid = func() int { return uid }
	return func() { geteuid = prev }
}
