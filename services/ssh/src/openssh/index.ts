// OpenSSH mode (services/ssh/README.md#openssh-mode): what the launcher writes for
// githost-keys and githost-serve, which sshd runs.
export { SETTINGS_FILE_NAME, SETTINGS_NAMES, settingsOf, writeSettingsFile } from './settings-file.js';
export { parseSettings, readSettings } from './settings.js';
