#!/bin/sh
# Count the lines of every file given.
wc -l "$@"
