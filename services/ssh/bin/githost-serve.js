#!/usr/bin/env node
// The command githost-keys forces for a key: runs SSH_ORIGINAL_COMMAND (services/ssh/README.md#openssh-mode).
import '../dist/openssh/serve-main.js';
