package io.lodestar.api.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.freeze.FreezingArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout's rules, checked on every module's compiled classes: no package depends on itself
 * through others, and the domain modules know nothing of HTTP, gRPC, JSON or the API. Cycles that
 * predate this test are frozen in {@code src/test/resources/archunit_store} (a cycle broken since
 * drops out of it); a new one fails the build.
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.lodestar");
    }

    @Test
    void noPackageDependsOnItselfThroughOthers() {
        ArchRule rule = slices().matching("io.lodestar.(**)").should().beFreeOfCycles();
        FreezingArchRule.freeze(rule).check(classes);
    }

    @Test
    void theDomainModulesKnowNothingOfTheProtocols() {
        noClasses()
                .that()
                .resideInAnyPackage("io.lodestar.kv..", "io.lodestar.config..", "io.lodestar.naming..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.lodestar.api..", "io.javalin..", "io.grpc..", "jakarta.servlet..")
                .check(classes);
    }

    @Test
    void theStoreKnowsNothingOfConfigsOrInstances() {
        noClasses()
                .that()
                .resideInAPackage("io.lodestar.kv..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.lodestar.config..", "io.lodestar.naming..")
                .check(classes);
    }
}
