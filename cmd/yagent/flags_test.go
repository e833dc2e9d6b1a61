package main

import "flag"

var updateScripts = flag.Bool("update", false, "rewrite golden files and testscript archives in place")
