/// Real English words that a repair would otherwise read as a lexicon word: one letter
/// away from one ("rash" is not "trash"), or two list words glued ("therapist"). These are
/// the words of Debian's wamerican-large list (/usr/share/dict/american-english-large) that
/// `ModerationLexicon.repaired` changes without them; ModerationLexiconTests checks the list
/// is complete whenever that file is installed, and names any word to add.
enum ModerationLexiconKnownWords {
    static let words: [String] = """
        abby ablest academic acre adenovirus adman africa afterword afterwords ages agincourt alderwoman
        alderwomen allaying allegro alludes almswoman amassed ambo ambos ambulancewoman ambulancewomen amerasian
        america american americano amerindian amerindians among anchorwoman anchorwomen andes anima animas anna
        anticancer anticommunists anticrime antipathetic antiterrorist antivirus anythings apatetic apathetic
        aped apelike apeman apemen aping apposite apse aras arbovirus arbs arched ares armani aroma
        aromatherapists arteriosclerotic artist arts asexual asia aspic aspics assemblywoman assemblywomen
        aswarm athanasian atherosclerotic athlete attis aunts australasian autoerotic autopilots awfullest
        babysits backbeat backcourt backhoe backhoes backs backstabbing backswords backwaters baker bakes
        ballgirls banaras banares banditry bandog bandore banging banishing banker bantings bast beaked beakers
        beating beats best bests bestselling beta bighorn bigshot bind biol birdcages blackburn blackcock
        blackened blackhearts blackout blacksnake blackwell blindstory blood bloodshot bobs bombe bombsite
        bondswoman bondswomen bondwoman bondwomen boneblack boob boos bootblack bootblacks boulanger breadstuff
        breathings bred brede bree broadswords browbeaten brunt bullshits bunt burnishing burnout burnsian burt
        bushranger businesswoman businesswomen buzzkills buzzwords byword bywords cal caldron caliphates
        callback callbacks callboy callus callused camelback camerawoman camerawomen candiot caner canted
        canting canucks capitalist carp catchwords catholicon catskills caucasian caucasians centrist chairwoman
        chairwomen charwoman charwomen chickenshits chid chin chines chinooks chins churchwoman churchwomen
        citizen clam clambered clams clanswoman clanswomen clergywoman clergywomen cliffhanger clubwoman cnut
        cocksure cockup codewords colorblind comebacks commentates commentating committeewoman committeewomen
        communist con congas congresswoman congresswomen conn conns conquer conquers cons consequence
        conservative consult consultant consults contemp contemplation contemplations contras cooncan coos
        copywriting corn cornishwoman coronavirus councilwoman councilwomen counterattack counterattacked
        counterattacking counterchanged counterclaim counterclaimed counterclaiming counterclaims counterpunch
        counterstatement countrywoman countrywomen courtroom craftswoman craftswomen crapshoot crapy creature
        cree crepe crim crimean crossbreed crossbreeding crosswords cruellest curt curtsying cutback cutbacks
        cutin cutis cutlet cutlets cutoff cutout cuts cutthroat cutthroats cuttings cutup cyclist dairywoman
        dairywomen deadbeat deadbeats deadened deadlocked deafened deathday deathlike departmentally depot
        detrimentally developmentally dickerson dickson dieback diebacks diego disable discloser disenchanted
        disenchanting doctor doctorates dogears dogging doggo doggone doglike donor doorposts doubleganger
        downbeat downbeats downed dowries draftswoman draftswomen droned dumbwaiter dumbwaiters dutchwoman dyes
        ears east easts eaten echovirus economist ectoparasite ectoparasites either ells ember embers
        endoparasite endoparasites englishwoman englishwomen enterovirus environmentally eradiate evildoing
        evillest evulsion exchanger executive exist exists experimentally fagging fagin fagot fagots familiars
        feedstuff feuchtwanger firebombed floorshows foodstuff forager forages foraying forecourt forehead
        foreigner foreshows forests foretelling foretells forewoman forewomen forewords fortran fortunetelling
        freakout freedwoman freedwomen frenchwoman frenchwomen frontierswoman frontierswomen fundamentally
        gainsaying garage garbageman gardener gascon gasman gasmen gateposts genital gentlewoman gentlewomen
        ghostwrite ghostwrites ghostwriting ghostwritten ghostwrote givebacks goalposts goblin god godawful
        goddam gong governmentally greed gridlocked gros guideposts halfbreed hall hame handwriting handwritten
        hangdog hangman hangmen hangout hangover hangup hared hastings hated hats headbanger headwaiters
        headwords heaped heaping hearse hearts heating hepplewhite herat heredity herrick heterosexual highbred
        hings hits hoedown homegirls homoerotic homophobe homs hooke hoot hooting horn hornworts horseleech
        horseleeches horseshits horsewoman horsewomen hose hough howells hows hungover hurst huts
        hypnotherapists hyponasty icons ills inaner inbred inbreed inbreeding inconsequence inconsequences
        incrementally india indianan indie indiscrimination indochinese indue indues inexecution inked inset
        insets instatement instrumentally insult interbreed interbreeding interchanged interlocked intersexual
        intrans intreat invader invades irishwoman irishwomen islamist itch itches iterated iterating ives
        jailor jerkin jewelled jewelling jihad jihads judgmentally jurywoman jurywomen justinian kiddie
        kinswoman kinswomen lace lack lacks lairs lampblack lampposts landlocked landlord lars lathe lathing
        latin latins laughter laundrywoman laundrywomen lawyer layers lech leches lest lettings lever liar lias
        liberal lied lief lies lifeblood lind lindsay linebreeding lintwhite liras loanwords loath lobbyist
        locke longhorn lose loses lovesick mailbombed mailwoman manager manages mangers manifest manifestation
        manifesting manslaughter mantels mantras manxwoman marche markswoman mart mater maters matriarchates
        matte matterhorn mattes meager meaner medick megadeath menages meriting micromanagers microparasite
        mileposts minelayers minos misguide misrepresent moderate money moneychanger moneys moneyworts mons
        monsoons monster montenegro monumentally moon moons moonshot moonworts moreno morn morns moro moroni
        motherfucking motherwort motherworts motorcyclists multicolored muts mylars nazi ned needlewoman
        needlewomen negros neighbor nero nether nevermore newsgirls newspaperwoman newspaperwomen newswoman
        newswomen niger nightblind noblewoman noblewomen nohow nomen nonego nonesuch noplace norfolk norgay
        norite norman northing norway norwich notates notating nothings noting notus nought noway nowhere noyes
        nurse oarswoman oarswomen offbeat offbeats offcuts offshoot offsite okaying oman omani omen omnipresent
        onager onsite orange orangy orates orating ornamentally orth outages outbacks outbreed outhits outpost
        outposts outrage outruns outshoot outshouted outshouting outwore overages overalls overclocked
        overconservative overeaten overhang overhung overkill overliberal overruns overshoe overshoot
        overshooting overshot overstatement overstatements overstuff overviolent overword overwrite overwrites
        overwriting overwritten overwrote pace painkilling pakistan pakistani papergirls paperhanger
        parasympathetic particolored passwords patriarchates patrolwoman patrolwomen peepshows pens pentathletes
        peron personages personates personating pervert pets phalanger phosphates physiotherapists pick picks
        pics pigging piggott piglet piglets pigmy pigpens pigswill pilot pis plage playgirls playthings
        playwriting plots policeman policemen policewoman policewomen politician poss postboy postman postmen
        postwoman postwomen pots prion pron pronates pronating protester psis psychosexual psychotherapists pure
        puss quitclaim quitclaims radiotherapists rainless rapist rase rash ratan rathe rather ratlike rattans
        reed reeding reedy refuge refuges reimprison reinstatement repairwoman resect reset resident residents
        retrad retrovirus reuse rhinovirus rick ricks rime rinderpests ripple ripples rite rites roadblocked
        roadshows roam robocalled robocalling robocalls rodent rom roman romancer romanian romano ross rote
        rotenone rudderposts runs rust sacramentally sadat sadi salesgirls saleswoman saleswomen samos sand
        sandalled sank sayyid scarlatina schoolgirls scientist scotchwoman scotchwomen scotswoman scotswomen
        screenwriting scriptwriting scrubwoman scummy seeker seism selectwoman selectwomen semiskilled
        sentimentally servicewoman servicewomen sexpots sextans sham shamed sharpshooting sheathings shoeblack
        shoeblacks shoehorn shoelace shoo shooing shootout shortchanged shotten show showgirls sian sicken
        sickened sickout sickroom sics sideshows signposts site sits slideshows smell snapback snapshot soaked
        soakers soaped soaping sobered socage socages somali somethings sonatina sonatinas songwriting
        sonofabitch sonsofbitches soot soothing soothsaying sorites sorn sows spacewoman spacewomen spae
        speedwriting spokeswoman spokeswomen sportswoman sportswomen sportswriting stabbings stablest stan
        stateswoman stateswomen stavanger sternposts storytelling strange straphanger striper sued suffr
        sumatrans superwoman superwomen swam swearwords tabbed tabbing tans tarns teacher teaches teargassed
        teats teenage tees tel telemark teleport teleportation tellus tels temperamentally ten tenn tenno tens
        theban therapist therapists thespis thieve thins threatened tings tirewoman toasty toddle togas topics
        tough townswoman townswomen tradeswoman tradeswomen tran transcaucasian transit transits translation
        translations transmigrant transsexual transudes transvalue trapshooting trashcan treas treat tribeswoman
        tribeswomen tripper troat troats troubleshoot troubleshooting tuff typewrite typewrites typewriting
        typewritten typewrote ultraconservatives ultravirus uncleaner underbred undercut undercuts underdog
        underdogs underhung undershoot undershooting undershot understatement understatements underthings
        underwrite underwrites underwriting underwritten underwrote unproclaimed unreclaimed unsympathetic
        upbeat upbeats upperclasswoman upperclasswomen upshot urge usages usurious vale varicolored vegetarian
        veil vespasian vetoing violet waiter warm warms washerwoman washerwomen washings washwoman washwomen
        wast wastings watchwords waters waylayers weaner weer weevil welshwoman whatnot whatsits wheres whit
        whitehall whitehead whitened whiteout whitespace whitethroat whitethroats whoreson wile windburned
        windburnt wising witchdoctors wite wold womankind womanlike womenfolks womenkind wong word wordsworth
        wore workingwoman workingwomen workwoman worsened wort writ writeup writs wrongdoing wroth yachtswoman
        yachtswomen yeas younger
        afghanis agglutinative alight allative alternative alternatives amative antichristian antitumor
        ataghan backlight behind behinds bewared bewaring bight blacklight bligh bloodsucker callaghan
        carminative carminatives christiansand christina combinative commentative conative consultative
        contaminative coordinative daylight deadlight denominative designative determinative determinatives
        discriminative donative eliminative forewarned forewarning freeloader gaslight germinative
        hallucinative highlight hind hinds hindustan illuminative imaginative indus intermits jamaica koran
        korans korea light locust manifestative moocher mooches moonlight naive nigeria nominative nominatives
        opinionative originative palestinian pensioner protestant ratiocinative recriminative ruminative
        scrounger scrounges sheikhs somalian sponger sponges subordinative syria terminative termite
        unimaginative unit waned waning waring
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
}
