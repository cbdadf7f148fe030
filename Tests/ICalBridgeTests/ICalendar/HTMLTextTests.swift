import Testing

@testable import ICalBridge

@Suite struct HTMLTextTests {
    @Test("every HTML5 named reference is decoded, not only the common ones")
    func html5NamedReferencesAreDecoded() {
        let html = "<p>Ma&ntilde;ana en M&aacute;laga, No&euml;l &amp; Zo&euml; &mdash; caf&eacute;</p>"
        #expect(HTMLText.plainText(fromHTML: html) == "Mañana en Málaga, Noël & Zoë — café")
    }

    @Test("the longest name, a name of two scalars and a capitalised name decode")
    func unusualReferencesDecode() {
        #expect(HTMLText.plainText(fromHTML: "a&CounterClockwiseContourIntegral;b") == "a\u{2233}b")
        #expect(HTMLText.plainText(fromHTML: "&NotNestedLessLess;") == "\u{2AA1}\u{338}")
        #expect(HTMLText.plainText(fromHTML: "&AElig;&Ntilde;&THORN;") == "ÆÑÞ")
    }

    @Test("a name HTML5 does not define, and one without its semicolon, stay as written")
    func unknownReferencesStayLiteral() {
        #expect(HTMLText.plainText(fromHTML: "&notaname; &eacute &amp;") == "&notaname; &eacute &")
    }

    @Test("a non-breaking space is a plain space in the text")
    func nonBreakingSpaceIsASpace() {
        #expect(HTMLText.plainText(fromHTML: "a&nbsp;b") == "a b")
    }

    @Test("every entry of the generated table is read, those of two scalars too")
    func wholeTable() {
        let entries = HTMLText.entityRows.split(whereSeparator: \.isWhitespace)
        #expect(entries.count == 2125)
        #expect(HTMLText.namedEntities.count == entries.count)
        #expect(HTMLText.decodeEntity("NotEqualTilde") == "\u{2242}\u{0338}")
        #expect(HTMLText.decodeEntity("AElig") == "Æ" && HTMLText.decodeEntity("zwnj") == "\u{200C}")
    }
}
