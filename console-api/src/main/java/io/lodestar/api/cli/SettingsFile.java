package io.lodestar.api.cli;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A Java properties file read with the line each key is on, so that a refusal can name it.
 * {@link Properties} parses each entry (escapes, {@code =}, {@code :} or a space between key and
 * value, a trailing backslash continuing the value on the next line); this class only keeps count
 * of lines. A key given twice is refused rather than the later one silently winning.
 */
final class SettingsFile {
    /** One key's value, trimmed, and the line its entry starts on (1-based). */
    record Entry(String value, int line) {}

    final Path path;
    /** The entries in the order of the file. */
    final Map<String, Entry> entries;

    private SettingsFile(Path path, Map<String, Entry> entries) {
        this.path = path;
        this.entries = Collections.unmodifiableMap(entries);
    }

    /**
     * @throws IOException when the file cannot be read (a missing file: {@link
     *     java.nio.file.NoSuchFileException}), or is not UTF-8
     * @throws IllegalArgumentException naming the line of a key given twice
     */
    static SettingsFile read(Path path) throws IOException {
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String start = line.stripLeading();
            if (start.isEmpty() || start.startsWith("#") || start.startsWith("!")) {
                continue;
            }
            int first = i + 1;
            StringBuilder entry = new StringBuilder(line);
            while (continues(lines.get(i)) && i + 1 < lines.size()) {
                i++;
                entry.append('\n').append(lines.get(i));
            }
            Properties one = new Properties();
            one.load(new StringReader(entry.toString()));
            for (String key : one.stringPropertyNames()) {
                Entry earlier = entries.get(key);
                if (earlier != null) {
                    throw new IllegalArgumentException(path + " line " + first + ": " + key
                            + " is set again (first on line " + earlier.line() + ")");
                }
                entries.put(key, new Entry(one.getProperty(key).trim(), first));
            }
        }
        return new SettingsFile(path, entries);
    }

    /** Whether a line ends in an odd number of backslashes: its value goes on on the next line. */
    private static boolean continues(String line) {
        int n = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            n++;
        }
        return n % 2 == 1;
    }
}
