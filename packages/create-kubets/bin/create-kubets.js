#!/usr/bin/env node
// A committed entry point, so package managers can link the command before the first build.
import '../dist/cli.js';
