#!/usr/bin/env node
// sshd's AuthorizedKeysCommand for githost (services/ssh/README.md#openssh-mode).
import '../dist/openssh/keys-main.js';
