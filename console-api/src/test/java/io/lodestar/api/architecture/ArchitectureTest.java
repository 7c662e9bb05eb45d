package io.lodestar.api.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout's rules, checked on every module's compiled classes: no package depends on itself
 * through others, and the domain modules know nothing of HTTP, gRPC, JSON or the API.
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ArchitectureTest::isNotATestJar)
                .importPackages("io.lodestar");
    }

    /**
     * Within one module's test run Maven puts the sibling modules on the class path as
     * {@code target/classes}; in a reactor {@code verify} they are the packaged jars. Both are the
     * code under test, so jars are imported too; only test code, in directories or test-jars, is
     * left out.
     */
    private static boolean isNotATestJar(Location location) {
        return !location.contains("-tests.jar");
    }

    @Test
    void everyModuleIsImported() {
        for (String module :
                new String[] {"io.lodestar.kv", "io.lodestar.config", "io.lodestar.naming", "io.lodestar.api"}) {
            assertTrue(classes.containPackage(module), () -> "no classes imported from " + module);
        }
    }

    @Test
    void noPackageDependsOnItselfThroughOthers() {
        slices().matching("io.lodestar.(**)").should().beFreeOfCycles().check(classes);
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
