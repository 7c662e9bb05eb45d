package io.lodestar.api.cli.config;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Publishes a config from {@code --content} or a UTF-8 file. */
@Command(
        name = "publish",
        mixinStandardHelpOptions = true,
        description = "Publish a config (create or replace) from --content or --file.")
final class PublishConfig extends ClientCommand {
    @Mixin
    KeyOptions key;

    @ArgGroup(multiplicity = "1")
    Source source;

    static final class Source {
        @Option(names = "--content", paramLabel = "TEXT", description = "The content.")
        String content;

        @Option(names = "--file", paramLabel = "PATH", description = "A UTF-8 file holding the content, taken as is.")
        Path file;
    }

    @Option(
            names = "--type",
            paramLabel = "TYPE",
            description = "The content's type: text, json, xml, yaml, html, properties.")
    String type;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        String content = source.content != null ? source.content : read(source.file);
        key.on(client.post(ConfigCommand.CONFIGS))
                .param("content", content)
                .param("type", type)
                .ok();
        out.done("published " + key.dataId + " (group " + key.group + ")");
        return ExitCodes.OK;
    }

    private static String read(Path file) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new CommandFailure(ExitCodes.USAGE, "--file: " + file + " is not UTF-8 text");
        } catch (IOException e) {
            throw new CommandFailure(ExitCodes.USAGE, "--file: cannot read " + file + ": " + e.getMessage());
        }
    }
}
